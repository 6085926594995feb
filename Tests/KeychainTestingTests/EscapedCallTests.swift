import Foundation
import KeychainFSTestSupport
import KeychainTesting
import Security
import Synchronization
import Testing
import XCTest

/// A keychain call that leaves its test's binding (on a DispatchQueue or a Thread, which lose task-locals)
/// never reaches the user's keychain (docs/test-kit.md): under XCTest it reaches the test's device, under
/// Swift Testing it is refused, and no default vault is ever made while a kit device lives.
final class EscapedCallXCTests: SimulatedDeviceTestCase {
    func testACallFromADispatchQueueReachesTheTestsDevice() throws {
        let done = DispatchSemaphore(value: 0)
        let status = Mutex<OSStatus?>(nil)
        DispatchQueue(label: "escaped").async {
            status.withLock { $0 = TokenCode.save("from a queue") }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(status.withLock { $0 }, errSecSuccess)
        XCTAssertEqual(TokenCode.read().1, "from a queue", "the queue's add reached this test's device")
        XCTAssertTrue(device.events.contains { $0.call?.operation == .add })
    }
}

@Suite struct EscapedCallTests {
    static let childVariable = "KEYCHAINTESTING_TEST_ESCAPED_CALL"

    /// In a process of its own, with a home of its own and no `KEYCHAIN_VAULT`: the child below makes a
    /// device, escapes its binding on a thread, and reports what it saw; then (its device gone) makes an
    /// ordinary unbound call, which does make the default vault: the check below can see one appear.
    @Test func anEscapedCallIsRefusedAndMakesNoDefaultVault() throws {
        let home = TestDirectory.root + "/kit-escape-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let note = home + "/note"
        let child = try ChildTest.run(
            "EscapedCallTests/escapeInAProcessOfItsOwn",
            environment: [
                Self.childVariable: note, "HOME": home, "XDG_DATA_HOME": home + "/data", "KEYCHAIN_VAULT": "",
            ], timeout: 120)
        #expect(child.status == 0, "\(child.stderr)")
        let lines = try String(contentsOfFile: note, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "escaped: \(errSecNotAvailable)", "the escaped add was refused")
        #expect(lines.dropFirst().first == "default vault while the device lived: no")
        #expect(lines.dropFirst(2).first == "unbound after the device: \(errSecSuccess)")
        #expect(FileManager.default.fileExists(atPath: home + "/data/keychainfs/default/vault.json"))
        #expect(child.stderr.contains("outside the simulated device's binding"), "said once on stderr")
    }

    /// Run by ``anEscapedCallIsRefusedAndMakesNoDefaultVault()`` in a process of its own.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[EscapedCallTests.childVariable] != nil))
    func escapeInAProcessOfItsOwn() throws {
        let environment = ProcessInfo.processInfo.environment
        let defaultVault = environment["XDG_DATA_HOME"]! + "/keychainfs/default"
        var report: [String] = []
        do {
            let device = try SimulatedDevice(passcode: "1234")
            let status = Mutex<OSStatus?>(nil)
            let done = DispatchSemaphore(value: 0)
            device.run {
                Thread.detachNewThread {
                    status.withLock { $0 = TokenCode.save("escaped") }
                    done.signal()
                }
                _ = done.wait(timeout: .now() + 60)
            }
            report.append("escaped: \(status.withLock { $0 } ?? 0)")
            let made = FileManager.default.fileExists(atPath: defaultVault)
            report.append("default vault while the device lived: \(made ? "yes" : "no")")
        }
        report.append("unbound after the device: \(TokenCode.save("unbound"))")
        try report.joined(separator: "\n").write(
            toFile: environment[Self.childVariable]!, atomically: true, encoding: .utf8)
    }

    static let leakVariable = "KEYCHAINTESTING_TEST_LEAKED_DEVICE"
    nonisolated(unsafe) static var leaked: SimulatedDevice?

    /// A device still alive when its test process exits leaves no directory behind, and a process that died
    /// without its exit hook has its directory swept by the next process that makes a device.
    @Test func devicesDirectoriesGoAtExitAndDeadOnesAreSwept() throws {
        let base = try (SimulatedDevice().directory as NSString).deletingLastPathComponent
        let gone = Command.run("/bin/sh", ["-c", "echo $$"])  // a pid that has exited
        let deadPID = try #require(Int32(gone.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let dead = base + "/keychaintesting-\(deadPID)-abcdef"
        let alive = base + "/keychaintesting-\(getpid())-abcdef"  // this process: never swept
        for path in [dead, alive] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        defer { for path in [dead, alive] { try? FileManager.default.removeItem(atPath: path) } }
        let note = TestDirectory.root + "/kit-leak-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: note) }
        let child = try ChildTest.run(
            "EscapedCallTests/leakADevice", environment: [Self.leakVariable: note, "KEYCHAINTESTING_DIRECTORY": base],
            timeout: 120)
        #expect(child.status == 0, "\(child.stderr)")
        let leakedDirectory = try String(contentsOfFile: note, encoding: .utf8)
        #expect(leakedDirectory.hasPrefix(base + "/keychaintesting-"))
        #expect(!FileManager.default.fileExists(atPath: leakedDirectory), "removed at exit")
        #expect(!FileManager.default.fileExists(atPath: dead), "a dead process's directory was swept")
        #expect(FileManager.default.fileExists(atPath: alive), "a live process's directory was kept")
    }

    /// Run by ``devicesDirectoriesGoAtExitAndDeadOnesAreSwept()``: keeps a device in a static and exits.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[EscapedCallTests.leakVariable] != nil))
    func leakADevice() throws {
        let device = try SimulatedDevice()
        Self.leaked = device
        try device.directory.write(
            toFile: ProcessInfo.processInfo.environment[Self.leakVariable]!, atomically: true, encoding: .utf8)
    }

    /// `runInBackground` takes a throwing closure and runs as the test's app.
    @Test func aBackgroundCallThrowsAndRunsAsTheTestsApp() throws {
        let device = try SimulatedDevice()
        let app = App(bundleID: "com.example.tokens", accessGroups: ["ABCDE12345.com.example.tokens"])
        struct Missing: Error {}
        try device.run(as: app) {
            #expect(TokenCode.save("t") == errSecSuccess)
            let read = device.runInBackground { () throws -> String in
                guard let token = TokenCode.read().1 else { throw Missing() }
                return token
            }
            let outcome = try #require(read.wait(timeout: .seconds(60)))
            #expect(try outcome.get() == "t", "the background call is the app's: it sees the app's item")
            let failing = device.runInBackground { () throws -> String in throw Missing() }
            #expect(throws: Missing.self) { try #require(failing.wait(timeout: .seconds(60))).get() }
        }
    }
}
