import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Face ID through the mount (docs/spec.md §4 gatekeeper path, §11; docs/authentication-table.md): the prompt
/// is raised at OPEN for the opening process and answered from a script with `keychainfs device prompt`.
@Suite struct AuthenticationThroughMountTests {
    let m: MountedVault
    let value: String

    init() throws {
        m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add([
            "class": "genp", "svce": "face", "acct": "token", "v_Data": .data(Data("s3cret".utf8)),
            "accc": .number(1 << 1),
        ])
        _ = try connection.add(["class": "genp", "svce": "plain", "acct": "open", "v_Data": .data(Data("open".utf8))])
        value = m.path("genp/face/token/value")
    }

    func promptsRaised() throws -> Int64 {
        try m.control.send(ControlRequest(.biometryStatus)).check()?.dictionaryValue?["promptsRaised"]?.numberValue
            ?? -1
    }

    func pendingPrompts() -> [String] {
        m.cli(["device", "prompts", "--mount", m.mount]).stdout.split(separator: "\n").map(String.init)
    }

    @Test func catIsCanceledByDefaultAndReadsTheSecretOnMatch() throws {
        #expect(FS.read(value) == .failure(Errno(ECANCELED)), "default 'auto cancel': ECANCELED")
        try expectSuccess(m.device("prompt", "auto", "off"))
        try expectSuccess(m.device("prompt", "match", "--next"))
        let cat = Command.run("/bin/cat", [value])
        #expect(cat.succeeded && cat.stdout == "s3cret")
        try expectSuccess(m.device("prompt", "no-match", "--next"))
        let refused = Command.run("/bin/cat", [value])
        #expect(!refused.succeeded && refused.stderr.contains("Operation not permitted"), "errSecAuthFailed → EPERM")
        #expect(
            FS.read(m.path("genp/plain/open/value")) == .success(Data("open".utf8)), "unprotected values never prompt")
    }

    @Test func writingAProtectedValueAsksOnceAtOpen() throws {
        #expect(FS.write(value, "stolen") == ECANCELED, "default 'auto cancel'")
        try expectSuccess(m.device("prompt", "auto", "off"))
        try expectSuccess(m.device("prompt", "match", "--next"))
        let before = try promptsRaised()
        #expect(FS.write(value, "rotated") == 0)
        #expect(try promptsRaised() == before + 1, "one prompt: the commit at close uses the open's answer")
        try expectSuccess(m.device("prompt", "match", "--next"))
        #expect(FS.read(value) == .success(Data("rotated".utf8)))
    }

    @Test func exactlyOnePromptPerOpenAndReadsPastTheEndNeverPrompt() throws {
        try expectSuccess(m.device("prompt", "match", "--next"))
        let before = try promptsRaised()
        let fd = open(value, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(FS.readAll(fd) == .success(Data("s3cret".utf8)))
        var byte: UInt8 = 0
        #expect(pread(fd, &byte, 1, 100) == 0, "a read past the end")
        #expect(lseek(fd, 0, SEEK_SET) == 0)
        #expect(FS.readAll(fd) == .success(Data("s3cret".utf8)), "reading again on the same open file")
        #expect(try promptsRaised() == before + 1)
        try expectSuccess(m.device("lock"))
        #expect(Glibc.read(fd, &byte, 1) < 0 && errno == EACCES, "the lock ends the open file's answer")
    }

    @Test func pendingProtectedOpensDoNotDelayAnUnprotectedRead() throws {
        try expectSuccess(m.device("prompt", "auto", "off"))
        let cats = (0..<20).map { _ in Process() }
        for cat in cats {
            cat.executableURL = URL(fileURLWithPath: "/bin/cat")
            cat.arguments = [value]
            cat.standardOutput = FileHandle.nullDevice
            cat.standardError = FileHandle.nullDevice
            try cat.run()
        }
        defer { for cat in cats where cat.isRunning { cat.terminate() } }
        #expect(m.wait(20) { pendingPrompts().count == 20 }, "twenty prompts pending")
        let started = Date()
        #expect(FS.read(m.path("genp/plain/open/value")) == .success(Data("open".utf8)))
        #expect(Date().timeIntervalSince(started) < 2)
        let listed = pendingPrompts().first ?? ""
        #expect(
            listed.contains("biometry") && listed.contains("/cat"), "the prompt names its kind and caller: \(listed)")
        for _ in 0..<20 { try expectSuccess(m.device("prompt", "cancel")) }
        for cat in cats { cat.waitUntilExit() }
        #expect(cats.allSatisfy { $0.terminationStatus != 0 })
    }

    @Test func ctrlCOnCatCancelsItsPrompt() throws {
        try expectSuccess(m.device("prompt", "auto", "off"))
        let pid = try Self.spawnWithDefaultSignals("/bin/cat", [value])
        var status: Int32 = 0
        defer { if waitpid(pid, &status, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) } }
        #expect(m.wait(10) { pendingPrompts().count == 1 })
        kill(pid, SIGINT)
        #expect(m.wait(10) { pendingPrompts().isEmpty }, "FUSE_INTERRUPT canceled the prompt")
        #expect(m.wait(10) { waitpid(pid, &status, WNOHANG) == pid }, "cat ended")
    }

    /// Starts a program with SIGINT at its default action (a test runner's children may inherit it ignored,
    /// and a shell cannot undo that): as a terminal's Ctrl-C reaches `cat`.
    static func spawnWithDefaultSignals(_ path: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, nil, &attributes, argv, environ)
        guard result == 0 else { throw Errno(result) }
        return pid
    }

    @Test func anUnansweredPromptTimesOutAsACancel() throws {
        let timed = try MountedVault(mountArguments: ["--prompt-timeout", "1"])
        try expectSuccess(timed.device("passcode", "set", passcode: "1234"))
        try expectSuccess(timed.device("biometry", "enroll"))
        try expectSuccess(timed.device("prompt", "auto", "off"))
        let connection = try KeychainConnection(vault: Vault(directory: timed.vault), caller: Caller())
        _ = try connection.add([
            "class": "genp", "svce": "face", "acct": "t", "v_Data": .data(Data("x".utf8)), "accc": .number(1 << 1),
        ])
        let started = Date()
        #expect(FS.read(timed.path("genp/face/t/value")) == .failure(Errno(ECANCELED)))
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(timed.device("biometry", "status").stdout.contains("timeout 1 s"))
    }

    @Test func aPasscodeAnswerFromStandardInput() throws {
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add([
            "class": "genp", "svce": "presence", "acct": "p", "v_Data": .data(Data("pp".utf8)), "accc": .number(1 << 0),
        ])
        let presence = m.path("genp/presence/p/value")
        try expectSuccess(
            m.cli(["device", "prompt", "passcode", "--next", "--passcode-stdin", "--mount", m.mount], stdin: "0000\n"))
        #expect(FS.read(presence) == .failure(Errno(EPERM)), "a wrong passcode: errSecAuthFailed")
        try expectSuccess(
            m.cli(["device", "prompt", "passcode", "--next", "--passcode-stdin", "--mount", m.mount], stdin: "1234\n"))
        #expect(FS.read(presence) == .success(Data("pp".utf8)), "userPresence accepts the passcode")
        try expectSuccess(m.device("prompt", "passcode", "--next", passcode: "1234"))
        #expect(FS.read(value) == .failure(Errno(EPERM)), ".biometryAny takes no passcode (userFallback)")
        #expect(!m.device("prompt", "match").succeeded, "no prompt pending: an error, not a silent no-op")
        #expect(!m.device("prompt", "auto", "sometimes").succeeded)
    }

    @Test func biometryCommandsAndTheLockoutFromAScript() throws {
        let status = m.device("biometry", "status")
        #expect(
            status.stdout.contains("enrolled (Face ID)")
                && status.stdout.contains("prompts answered automatically: cancel"))
        try expectSuccess(m.device("prompt", "auto", "no-match"))
        for _ in 0..<5 { #expect(FS.read(value) == .failure(Errno(EPERM))) }
        #expect(m.device("biometry", "status").stdout.contains("locked out: yes"))
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(m.device("biometry", "status").stdout.contains("locked out: no"), "the passcode releases the lockout")
        try expectSuccess(m.device("biometry", "enroll"))
        try expectSuccess(m.device("biometry", "unenroll"))
        #expect(FS.read(value) == .failure(Errno(EPERM)), "not enrolled: errSecAuthFailed without a prompt")
    }
}
