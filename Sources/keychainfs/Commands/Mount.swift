import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSDaemon
import KeychainFSEngine
import KeychainFSModel
import Logging
import KeychainFSSecretService

struct Mount: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mount",
        abstract: "Mount a vault and serve it (in the background unless --foreground).")

    @Argument(help: "The vault directory.")
    var vault: String

    @Argument(help: "Where to mount it (created if missing).")
    var mountpoint: String

    @Flag(help: "Stay in the foreground and log to standard error.")
    var foreground = false

    @Option(
        name: .customLong("access-group"),
        help: "An access group of the mount's caller, in order (repeatable; default: 'default').")
    var accessGroups: [String] = []

    @Option(help: "Accessibility of items made with mkdir (raw value such as 'ck' or constant name).")
    var defaultAccessible: String?

    @Option(help: "The device key file, if it is not the vault's own.")
    var deviceKey: String?

    @Option(
        help: "Append a JSON line per open of a secret, SecItem call and device command to FILE (reopened on SIGHUP).")
    var auditLog: String?

    @Option(
        help: "Sync synchronizable items every SECONDS (the vault must have 'keychainfs sync init' or 'join' done).")
    var syncInterval: Int?

    @Flag(
        help:
            "Refuse callers that no rule of the vault's access.toml matches (keychainfs access). uid and unit rules are a boundary; exe, sha256, ancestor and user-unit rules are advisory: code of the same user can borrow them (docs/threat-model.md)."
    )
    var strict = false

    @Flag(
        help:
            "Make the first unlock without a passcode when the TPM releases it (after 'device boot-unlock enable'); a changed boot state leaves the device locked, with a warning saying why (docs/tpm.md)."
    )
    var tpmUnlock = false

    @Option(help: "Seconds before an unanswered authentication prompt ends as a user cancel.")
    var promptTimeout: Int = 30

    @Flag(
        help:
            "Let root read the mount too (systemd LoadCredential=); other users stay out. A mounting user other than root needs 'user_allow_other' in /etc/fuse.conf."
    )
    var allowRoot = false

    @Flag(
        help:
            "Read path for read-heavy services: no OPEN round trips, a read-only mount; refused with access rules, --strict or --audit-log; values with access control are EACCES."
    )
    var kernelCache = false

    @Flag(
        help:
            "Serve the freedesktop Secret Service (org.freedesktop.secrets) on the D-Bus session bus from this vault (docs/secret-service.md)."
    )
    var secretService = false

    @Flag(
        help:
            "With --secret-service: start a D-Bus session bus of the daemon's own (for servers and CI) and print its DBUS_SESSION_BUS_ADDRESS; it stops on unmount."
    )
    var privateBus = false

    @Flag(
        help:
            "With --secret-service: take org.freedesktop.secrets over from a program that allows it (gnome-keyring does; a keychainfs vault does not: unmount it)."
    )
    var replace = false

    func validate() throws {
        if (privateBus || replace) && !secretService {
            throw ValidationError("--private-bus and --replace go with --secret-service")
        }
        guard (1...86_400).contains(promptTimeout) else {
            throw ValidationError("--prompt-timeout must be 1 to 86400 seconds")
        }
        if let defaultAccessible, Accessibility(argument: defaultAccessible) == nil {
            throw ValidationError(
                "unknown accessibility '\(defaultAccessible)': use ak, ck, dk, aku, cku, dku, akpu or a kSecAttrAccessible… name"
            )
        }
        if let syncInterval, syncInterval < 1 {
            throw ValidationError("--sync-interval takes a whole number of seconds, at least 1")
        }
        if allowRoot, getuid() != 0, !FuseConfiguration.allowsOther() {
            throw ValidationError(
                "--allow-root needs a line 'user_allow_other' in \(FuseConfiguration.path) when the mounting user is not root "
                    + "(fusermount3 refuses allow_root otherwise); ask an administrator to add it")
        }
        if kernelCache, strict || auditLog != nil {
            throw ValidationError(
                "--kernel-cache cannot be combined with \(strict ? "--strict" : "--audit-log"): the kernel would open files without asking the daemon"
            )
        }
    }

    func run() throws {
        let vault = Vault(directory: vault)
        _ = try vault.config()
        try vault.checkPrivate()
        if ControlClient(vault: vault).isDaemonRunning {
            throw CLIError("\(vault.directory) is already served by a daemon")
        }
        let mountpoint = try MountPoint.prepare(mountpoint)

        guard foreground else {
            warnIfDeviceKeyInside(vault)
            try Background.start(arguments: daemonArguments(mountpoint), vault: vault, mountpoint: mountpoint)
            if strict { printAdvisoryRules(vault) }
            if privateBus { print("DBUS_SESSION_BUS_ADDRESS=\(PrivateBus.address(for: vault))") }
            if tpmUnlock { unlockWithTPM(vault) }
            return
        }
        // A daemon started in the background leads its own session, and its parent warned already.
        if getsid(0) != getpid() { warnIfDeviceKeyInside(vault) }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var configuration = DaemonConfiguration(
            vault: vault, mountpoint: mountpoint,
            caller: Caller(accessGroups: accessGroups.isEmpty ? Caller.defaultAccessGroups : accessGroups),
            defaultAccessible: defaultAccessible.flatMap(Accessibility.init(argument:)), deviceKeyPath: deviceKey,
            syncInterval: syncInterval.map(TimeInterval.init))
        configuration.strictAccess = strict
        configuration.auditLogPath = auditLog
        configuration.promptTimeout = TimeInterval(promptTimeout)
        configuration.readPath = kernelCache ? .kernelCache : .gatekeeper
        configuration.allowRoot = allowRoot
        configuration.unlocksWithTPM = tpmUnlock
        if secretService {
            configuration.secretService = SecretServiceOptions(privateBus: privateBus, replace: replace)
        }
        let status = Daemon.run(configuration, log: Logger(label: "keychainfs"))
        if status != 0 { throw ExitCode(status) }
    }

    /// `--tpm-unlock` of a daemon started in the background: asked of it once it serves; a refusal leaves the
    /// device locked and the mount in place, and says why.
    private func unlockWithTPM(_ vault: Vault) {
        do { _ = try ControlClient(vault: vault).call(DeviceUnlockWithTPM()) } catch {
            FileHandle.standardError.write(Data("keychainfs: warning: --tpm-unlock: \(error)\n".utf8))
        }
    }

    /// Under --strict, which rules only keep honest programs apart: code of the same user can borrow them.
    private func printAdvisoryRules(_ vault: Vault) {
        let advisory = ((try? AccessPolicy.read(AccessPolicy.path(of: vault))) ?? []).filter {
            $0.assurance == .advisory
        }
        guard !advisory.isEmpty else { return }
        let names = advisory.map { TerminalText.escaped($0.name) }.joined(separator: ", ")
        print(
            "strict: advisory rules (code of the same user can borrow them; docs/threat-model.md): \(names)")
    }

    /// A vault made by the release of 2026-11-23 keeps its device key inside: a copy of the directory alone
    /// opens anywhere. It still mounts; the user is told once how to move the key out.
    private func warnIfDeviceKeyInside(_ vault: Vault) {
        guard (try? vault.deviceKeyIsInside(override: deviceKey)) == true else { return }
        let warning =
            "keychainfs: warning: the device key of \(vault.directory) is inside the vault directory, so a copy of the directory opens anywhere; "
            + "move it out with 'keychainfs move-device-key \(vault.directory)' while the vault is not mounted\n"
        FileHandle.standardError.write(Data(warning.utf8))
    }

    private func daemonArguments(_ mountpoint: String) -> [String] {
        var arguments = ["mount", Vault(directory: vault).directory, mountpoint, "--foreground"]
        for group in accessGroups { arguments += ["--access-group", group] }
        if let defaultAccessible { arguments += ["--default-accessible", defaultAccessible] }
        if strict { arguments.append("--strict") }
        if kernelCache { arguments.append("--kernel-cache") }
        if allowRoot { arguments.append("--allow-root") }
        if secretService { arguments.append("--secret-service") }
        if privateBus { arguments.append("--private-bus") }
        if replace { arguments.append("--replace") }
        arguments += ["--prompt-timeout", String(promptTimeout)]
        if let deviceKey { arguments += ["--device-key", URL(fileURLWithPath: deviceKey).standardizedFileURL.path] }
        if let syncInterval { arguments += ["--sync-interval", String(syncInterval)] }
        if let auditLog { arguments += ["--audit-log", URL(fileURLWithPath: auditLog).standardizedFileURL.path] }
        return arguments
    }
}
