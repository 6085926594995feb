import Foundation
import KeychainTesting
import KeychainTestingMount
import Security
import KeychainFSTestSupport
import Testing

/// `device.mount()` and `device.environment` (KeychainTestingMount): the device's own engine over a real
/// FUSE mount and its control socket, so files, the CLI and the code under test see one device. These
/// tests block their thread on file reads and commands (never the shared pool's waits).
@Suite struct DeviceMountTests {
    /// What a read gave: the text, or the errno of the call that failed.
    enum Read: Equatable {
        case success(String)
        case failure(Int32)
    }

    /// Reads `path` whole through open/read.
    static func read(_ path: String) -> Read {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .failure(errno) }
        defer { close(fd) }
        return read(fd)
    }

    /// Reads an open descriptor from its start.
    static func read(_ fd: Int32) -> Read {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = pread(fd, &bytes, bytes.count, 0)
        guard count >= 0 else { return .failure(errno) }
        return .success(String(decoding: bytes.prefix(count), as: UTF8.self))
    }

    static func isMounted(_ path: String) -> Bool {
        MountedVault.mountTable().contains(" \(path) fuse.keychainfs ")
    }

    @Test func aLockThroughTheKitFailsReadsOfTheMountWithEACCES() throws {
        let device = try SimulatedDevice(passcode: "1234")
        #expect(device.run { TokenCode.save("token-1") } == errSecSuccess)
        let mount = try device.mount()
        let value = "\(mount)/genp/\(TokenCode.service)/me/value"
        #expect(Self.read(value) == .success("token-1"))
        let held = open(value, O_RDONLY)
        #expect(held >= 0)
        defer { if held >= 0 { close(held) } }
        device.lock()
        #expect(Self.read(value) == .failure(EACCES), "an open while locked")
        #expect(Self.read(held) == .failure(EACCES), "a descriptor opened before the lock")
        try device.unlock(passcode: "1234")
        #expect(Self.read(value) == .success("token-1"))
        // What the code under test writes, the files show at once, and the reverse.
        #expect(device.run { TokenCode.update("token-2") } == errSecSuccess)
        #expect(Self.read(value) == .success("token-2"))
    }

    @Test func theCLIDrivesTheDeviceThroughItsEnvironment() throws {
        let device = try SimulatedDevice(passcode: "1234")
        #expect(device.environment["KEYCHAIN_MOUNT"] == nil, "not mounted yet")
        let mount = try device.mount()
        let environment = device.environment
        #expect(environment["KEYCHAIN_MOUNT"] == mount)
        #expect(environment["KEYCHAIN_VAULT"]?.hasPrefix(device.directory + "/") == true)
        let lock = Command.run(MountedVault.binary, ["device", "lock"], environment: environment)
        #expect(lock.succeeded, "\(lock.stderr)")
        #expect(device.isLocked, "the CLI's lock is the kit's device")
        let unlock = Command.run(
            MountedVault.binary, ["device", "unlock", "--passcode-stdin"], stdin: "1234\n", environment: environment)
        #expect(unlock.succeeded, "\(unlock.stderr)")
        #expect(!device.isLocked)
        device.lock()
        let status = Command.run(MountedVault.binary, ["device", "status"], environment: environment)
        #expect(status.succeeded && status.stdout.contains("locked"), "\(status.stdout)\(status.stderr)")
    }

    @Test func nothingStaysMountedWhenTheDeviceGoesEvenAfterAFailure() throws {
        struct Failure: Error {}
        var mountpoint = ""
        var directory = ""
        #expect(throws: Failure.self) {
            let device = try SimulatedDevice()
            directory = device.directory
            mountpoint = try device.mount()
            #expect(Self.isMounted(mountpoint))
            throw Failure()  // a test that fails with its device mounted
        }
        #expect(!mountpoint.isEmpty && !Self.isMounted(mountpoint))
        #expect(!FileManager.default.fileExists(atPath: directory), "the device's directory went with it")
    }

    @Test func unmountEndsTheMountAndTheControlSocket() throws {
        let device = try SimulatedDevice()
        let mount = try device.mount()
        #expect(try device.mount() == mount, "mounting again: the same mount")
        #expect(throws: KeychainError.self) { try device.mount(as: App(bundleID: "com.example.other")) }
        device.unmount()
        #expect(!Self.isMounted(mount) && device.mountpoint == nil)
        let status = Command.run(MountedVault.binary, ["device", "status"], environment: device.environment)
        #expect(!status.succeeded, "no control socket once unmounted")
        #expect(try device.mount() == mount, "mounts again")
        device.unmount()
    }

    static let childVariable = "KEYCHAINTESTING_TEST_MOUNT_AND_DIE"

    /// A test process killed with its device mounted leaves nothing mounted: the mount's watchdog and
    /// `auto_unmount` take it down (the child below mounts, writes the mountpoint down, and SIGKILLs itself).
    @Test func aKilledTestProcessLeavesNothingMounted() throws {
        let note = FileManager.default.temporaryDirectory.appendingPathComponent("kit-mount-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: note) }
        let child = try ChildTest.run(
            "DeviceMountTests/mountAndDie", environment: [Self.childVariable: note], timeout: 60)
        #expect(child.status != 0, "the child was killed")
        let mountpoint = try String(contentsOfFile: note, encoding: .utf8)
        #expect(mountpoint.hasSuffix("/mount"))
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.isMounted(mountpoint) && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!Self.isMounted(mountpoint), "the dead process's mount was taken down")
        // The device's directory stays (a crash cleans nothing up); it is a test's, in the kit's place.
        try? FileManager.default.removeItem(atPath: (mountpoint as NSString).deletingLastPathComponent)
    }

    /// Run by ``aKilledTestProcessLeavesNothingMounted()`` in a process of its own.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[DeviceMountTests.childVariable] != nil))
    func mountAndDie() throws {
        let device = try SimulatedDevice()
        let mountpoint = try device.mount()
        try mountpoint.write(
            toFile: ProcessInfo.processInfo.environment[Self.childVariable]!, atomically: true, encoding: .utf8)
        kill(getpid(), SIGKILL)
    }
}
