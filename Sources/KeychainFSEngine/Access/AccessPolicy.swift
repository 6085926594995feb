import KeychainFSModel
import KeychainFSStore
import Foundation
import Synchronization

/// A vault's per-application access (docs/spec.md §12): the rules of its `access.toml`, re-read whenever the file
/// changes (so `keychainfs access grant` applies at once), and the caller each process is.
///
/// A process is matched against the rules in order; the first match grants its groups, and the ``Caller``
/// names that rule (``Caller/grantedBy``). A process that matches none gets the mount's default groups,
/// or nothing in strict mode. Without rules, callers keep the groups they were configured with.
public final class AccessPolicy: Sendable {
    public let vault: Vault
    /// The groups of a caller no rule matches (the mount's `--access-group` list).
    public let defaultCaller: Caller
    /// Whether callers no rule matches are refused.
    public let strict: Bool

    private struct Loaded {
        var stamp: FileStamp?
        var rules: [AccessRule]
        /// When the file was last looked at (``PolicyFileWatch/now()``); 0: never.
        var lookedAt: UInt64 = 0
        /// Why the file in place could not be read (thrown again until it changes).
        var malformed: KeychainError?
    }
    private let loaded = Mutex(Loaded(stamp: nil, rules: []))
    private let watch: PolicyFileWatch?
    /// How many times the file was looked at (stat'ed): for the test that a quiet policy costs no look.
    let looks = Atomic<Int>(0)
    /// How many times the watch was asked (a system call each): for the test of ``asOneRequest(_:)``.
    let watchAsks = Atomic<Int>(0)
    private let digests: ExecutableDigests
    /// Hears why a process running a rule's executable was not granted it (for the daemon's log).
    private let unverified: UnverifiedCallers
    /// Whether executables are matched by what they are (docs/access.md); off only by ``testSwitch``.
    private let verifiesExecutables: Bool
    /// Whether a connection's calls must come from what its process ran when it connected; off only by
    /// ``connectionBindingSwitch``.
    public let bindsConnections: Bool

    /// `KEYCHAINFS_TEST_DISABLE_GUARDS=executable-identity` (the lock guards' variable): for a test
    /// device only, exe rules match the path `/proc/PID/exe` reads as and no process is refused as
    /// unverifiable, as they once were (docs/spec.md §17), so that the tests of that protection show they can fail.
    public static let testSwitch = "executable-identity"

    /// Whether a daemon of a vault that is (`testDevice`) or is not a test device verifies executables.
    public static func verifiesExecutables(
        testDevice: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        !TestSwitches.isOff(testSwitch, testDevice: testDevice, environment: environment)
    }

    /// `KEYCHAINFS_TEST_DISABLE_GUARDS=connection-binding`: for a test device only, a connection's calls
    /// are not compared with what its process ran when it connected (``PeerProcess/changedSinceConnecting()``),
    /// so that the tests of the exec attacks on the control socket and the bus show they can fail.
    public static let connectionBindingSwitch = "connection-binding"

    /// Whether the connections of a vault that is (`testDevice`) or is not a test device are bound to their process.
    public static func bindsConnections(
        testDevice: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        !TestSwitches.isOff(connectionBindingSwitch, testDevice: testDevice, environment: environment)
    }
    /// How far up the process tree an ancestor rule looks.
    static let maxAncestors = 64

    /// The policy of `vault`. Throws when its `access.toml` is malformed (a daemon must not start with a
    /// policy it cannot read). `report` hears, at most once a minute per rule and reason, that a process
    /// running a rule's executable was refused it (``ProcessIdentity/unverifiable()``).
    /// `watchesFile`: whether the file is looked at only when it may have changed (``PolicyFileWatch``);
    /// false looks at it on every call, as before the watch (for the test that shows the watch's effect).
    public init(
        vault: Vault, defaultCaller: Caller, strict: Bool, verifiesExecutables: Bool = true,
        bindsConnections: Bool = true, watchesFile: Bool = true, report: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(KeychainError) {
        self.verifiesExecutables = verifiesExecutables
        self.bindsConnections = bindsConnections
        digests = ExecutableDigests(keysByChangeTime: verifiesExecutables)
        watch = watchesFile ? PolicyFileWatch(directory: vault.directory, fileName: AccessPolicyFile.fileName) : nil
        self.vault = vault
        self.defaultCaller = defaultCaller
        self.strict = strict
        unverified = UnverifiedCallers(report: report)
        _ = try rules()
    }

    /// The path of the policy file of `vault`.
    public static func path(of vault: Vault) -> String { vault.directory + "/" + AccessPolicyFile.fileName }

    /// The rules in force: re-read when the file's identity or time changed, looked at only when the watch
    /// heard a change or a second went by quietly (``PolicyFileWatch``). A file made malformed later keeps
    /// the last good rules in force (and throws, so callers can log it). Under one lock: a request that
    /// starts after a change never gets the rules from before it while another thread reads the file.
    public func rules() throws(KeychainError) -> [AccessRule] {
        let path = Self.path(of: vault)
        let outcome = loaded.withLock { loaded -> Result<[AccessRule], KeychainError> in
            let now = PolicyFileWatch.now()
            let quiet = loaded.lookedAt != 0 && now &- loaded.lookedAt < PolicyFileWatch.maxQuiet
            if let watch, quiet, LookScope.lookedAlready(self) || !askWatch(watch) {
                LookScope.noteLook(self)
                return loaded.malformed.map { .failure($0) } ?? .success(loaded.rules)
            }
            LookScope.noteLook(self)
            looks.add(1, ordering: .relaxed)
            loaded.lookedAt = now
            let stamp = FileStamp(path)
            // Unchanged (an absent file too, which has no rules): nothing to read.
            if loaded.malformed == nil, loaded.stamp == stamp { return .success(loaded.rules) }
            do throws(KeychainError) {
                loaded.rules = try Self.read(path)
                loaded.stamp = stamp
                loaded.malformed = nil
                return .success(loaded.rules)
            } catch {
                loaded.malformed = error
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func askWatch(_ watch: PolicyFileWatch) -> Bool {
        watchAsks.add(1, ordering: .relaxed)
        return watch.heardChange()
    }

    /// Runs `body` as one request: the watch is asked at most once on this thread within it, however often
    /// the request asks for the rules (a FUSE LOOKUP asked three times, each a `read` of the inotify
    /// descriptor). A change made before the request started still applies to it: its first
    /// question looks.
    public static func asOneRequest<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        let outer = LookScope.open()
        defer { LookScope.close(restoring: outer) }
        return try body()
    }

    /// Whether any rule exists (then kernel caches must not answer one caller with another's result).
    public var hasRules: Bool { !((try? rules()) ?? loaded.withLock { $0.rules }).isEmpty }

    /// The caller process `pid` (of user `uid`) is; nil when strict mode refuses it.
    public func caller(pid: Int32, uid: UInt32) -> Caller? {
        let rules = (try? rules()) ?? loaded.withLock { $0.rules }
        if rules.isEmpty { return strict ? nil : defaultCaller }
        let process = ProcessIdentity(pid: pid)
        var ancestors: [ProcessIdentity]?
        for rule in rules where matches(rule, process: process, uid: uid, ancestors: &ancestors) {
            var caller = Caller(accessGroups: rule.groups, grantedBy: rule.name, permissions: rule.permissions)
            caller.assurance = rule.assurance
            return caller
        }
        return strict ? nil : defaultCaller
    }

    private func matches(_ rule: AccessRule, process: ProcessIdentity, uid: UInt32, ancestors: inout [ProcessIdentity]?)
        -> Bool
    {
        switch rule.match {
        case .uid(let wanted): return uid == wanted
        case .unit(let unit): return process.isInUnit(unit, user: nil)
        case .userUnit(let unit): return process.isInUnit(unit, user: uid)
        case .executable, .sha256:
            if matchesExecutable(rule, process) { return true }
            guard rule.ancestor else { return false }
            if ancestors == nil { ancestors = Self.ancestors(of: process) }
            return ancestors!.contains { matchesExecutable(rule, $0) }
        }
    }

    /// The executable is compared as a file (device and inode of what the process runs, against the
    /// rule's path in the daemon's view), never by the path the process's namespace shows; and a process
    /// whose executable does not vouch for its code (``ProcessIdentity/unverifiable()``) matches no such rule.
    private func matchesExecutable(_ rule: AccessRule, _ process: ProcessIdentity) -> Bool {
        let runsIt =
            switch rule.match {
            case .executable(let path): verifiesExecutables ? process.runs(path) : process.executablePath() == path
            case .sha256(let hex): process.executableFile != nil && digests.digest(pid: process.pid) == hex
            default: false
            }
        guard runsIt else { return false }
        guard verifiesExecutables else { return true }
        if let reason = process.unverifiable() {
            unverified.note(rule: rule.name, reason: reason, pid: process.pid)
            return false
        }
        return true
    }

    private static func ancestors(of process: ProcessIdentity) -> [ProcessIdentity] {
        var out: [ProcessIdentity] = []
        var next = process.parent
        while let pid = next, out.count < maxAncestors {
            let ancestor = ProcessIdentity(pid: pid)
            out.append(ancestor)
            next = ancestor.parent
        }
        return out
    }

    // MARK: The file

    /// The rules of the file at `path`; none when it does not exist. Never follows a link; refuses
    /// anything but a regular file.
    public static func read(_ path: String) throws(KeychainError) -> [AccessRule] {
        // Never a hang on a FIFO, never through a link (docs/security.md).
        let opened: Int32?
        do { opened = try FileIO.openRegularIfPresent(path, flags: O_RDONLY, verb: "read") } catch {
            throw KeychainError(SecStatus.param, error.message)
        }
        guard let fd = opened else { return [] }
        // At most one byte past the limit is read: a huge file is refused, not loaded.
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var data = Data()
        while data.count <= 1 << 20, let chunk = try? handle.read(upToCount: (1 << 20) + 1 - data.count), !chunk.isEmpty
        { data.append(chunk) }
        guard data.count <= 1 << 20, let text = String(validating: data, as: UTF8.self) else {
            throw KeychainError(SecStatus.param, "\(path) is not UTF-8 text of at most 1 MiB")
        }
        do { return try AccessPolicyFile.parse(text) } catch {
            throw KeychainError(SecStatus.param, "\(path): \(error)")
        }
    }

    /// Replaces the vault's rules: written 0600 beside `access.toml` (never through a planted link) and
    /// renamed over it.
    public static func write(_ rules: [AccessRule], to vault: Vault) throws(KeychainError) {
        try FileIO.writeAtomically(Data(AccessPolicyFile.render(rules).utf8), to: path(of: vault), mode: 0o600)
    }
}

/// What tells a changed file from the one read: identity, size and modification time.
struct FileStamp: Equatable {
    let device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

    /// nil when the file does not exist.
    init?(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        seconds = st.st_mtim.tv_sec
        nanoseconds = st.st_mtim.tv_nsec
    }
}

/// The thread's request scope of ``AccessPolicy/asOneRequest(_:)``: outside one, nothing; inside, the policy
/// that already looked in it, if any.
private enum LookScope {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    /// The value inside a scope where no policy looked yet (a policy's address is never 1).
    private static var openMarker: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    static func open() -> UnsafeMutableRawPointer? {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, openMarker)
        return outer
    }

    static func close(restoring outer: UnsafeMutableRawPointer?) { pthread_setspecific(key, outer) }

    static func lookedAlready(_ policy: AccessPolicy) -> Bool {
        pthread_getspecific(key) == Unmanaged.passUnretained(policy).toOpaque()
    }

    /// Inside a scope, `policy` has looked: later questions in it take what it found.
    static func noteLook(_ policy: AccessPolicy) {
        guard pthread_getspecific(key) != nil else { return }
        pthread_setspecific(key, Unmanaged.passUnretained(policy).toOpaque())
    }
}
