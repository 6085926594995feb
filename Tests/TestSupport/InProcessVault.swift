import Foundation
import KeychainFSEngine

/// The one vault that in-process `Security` tests use, named through `KEYCHAIN_VAULT` before their first
/// SecItem call. It lives here, not in each test target, because the Swift 5 and Swift 6 twins of the
/// SecItem tests run in one process: two targets each setting `KEYCHAIN_VAULT` to their own directory
/// would send one test's add to one vault and its delete to the other. Tests tell their items apart by
/// service (see `uniqueService`).
public enum InProcessVault {
    /// The vault's directory; the first use sets `KEYCHAIN_VAULT` and registers its removal at exit.
    public static var path: String { shared }

    private static let shared: String = {
        let path = TestDirectory.root + "/kcfs-security-\(getpid())"
        // setenv may move `environ` under a Process.run() copying it in another test: hold them apart.
        ProcessEnvironment.lock.withLock { _ = setenv("KEYCHAIN_VAULT", path, 1) }
        // Made for tests, so that the calls reach it while the kit's devices live in this process too
        // (UnboundCalls refuses unbound calls to any other vault then).
        _ = try? Vault.create(at: path, testDevice: true)
        atexit { try? FileManager.default.removeItem(atPath: TestDirectory.root + "/kcfs-security-\(getpid())") }
        return path
    }()
}

/// Serialises changes to this process's environment with the spawning of child processes (which copies it).
public enum ProcessEnvironment {
    public static let lock = NSLock()
}
