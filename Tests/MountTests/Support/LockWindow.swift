import Foundation
import KeychainFSTestSupport

extension MountedVault {
    /// One lock cycle of the lock tests: locks (passcode 1234), stays locked `lockedFor` µs, unlocks, then
    /// waits `settle` µs so a reader refills what it can. Returns the locked window: from just after the
    /// lock returned to just before the unlock was asked (a read started inside it must not get the secret).
    func lockWindow(lockedFor: useconds_t, settle: useconds_t) throws -> (Double, Double) {
        try expectSuccess(device("lock"))
        let locked = LockReaderLoopTests.now()
        usleep(lockedFor)
        let unlocking = LockReaderLoopTests.now()
        try expectSuccess(device("unlock", passcode: "1234"))
        usleep(settle)
        return (locked, unlocking)
    }
}
