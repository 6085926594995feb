import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSDaemon
import KeychainFSEngine
import KeychainFSModel
import Logging
import KeychainFSSecretService

/// `keychainfs secret-service [VAULT]`: the Secret Service and the control socket without a mount, in the
/// foreground: what the session bus starts on demand (dist/org.freedesktop.secrets.service), and what a
/// server or a container without FUSE runs. Same engine, lock, rules and audit as a mount's daemon.
struct ServeSecretService: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret-service",
        abstract: "Serve a vault as the freedesktop Secret Service on D-Bus, without a mount (in the foreground).",
        discussion: """
            The vault defaults to $KEYCHAIN_VAULT, else ~/.local/share/keychainfs/default. Joins the bus that \
            started it (D-Bus activation: DBUS_STARTER_ADDRESS), else DBUS_SESSION_BUS_ADDRESS, and stops when \
            that bus goes away or on SIGTERM (with --private-bus, on SIGTERM only). docs/secret-service.md.
            """)

    @Argument(help: "The vault directory (default: $KEYCHAIN_VAULT, else ~/.local/share/keychainfs/default).")
    var vault: String?

    @Option(
        name: .customLong("access-group"),
        help: "An access group of the default caller, in order (repeatable; default: 'default').")
    var accessGroups: [String] = []

    @Option(help: "The device key file, if it is not the vault's own.")
    var deviceKey: String?

    @Option(help: "Append a JSON line per Secret Service call and control command to FILE (reopened on SIGHUP).")
    var auditLog: String?

    @Flag(help: "Refuse callers that no rule of the vault's access.toml matches (keychainfs access).")
    var strict = false

    @Option(help: "Seconds before an unanswered authentication prompt ends as a user cancel.")
    var promptTimeout: Int = 30

    @Flag(help: "Start a D-Bus session bus of the daemon's own; prints the DBUS_SESSION_BUS_ADDRESS to export.")
    var privateBus = false

    @Flag(
        help:
            "Take org.freedesktop.secrets over from a program that allows it (gnome-keyring does; a keychainfs vault does not: stop it)."
    )
    var replace = false

    func validate() throws {
        guard (1...86_400).contains(promptTimeout) else {
            throw ValidationError("--prompt-timeout must be 1 to 86400 seconds")
        }
    }

    func run() throws {
        var environment = ProcessInfo.processInfo.environment
        let vault = vault.map { Vault(directory: $0) } ?? ClientEnvironment.defaultVault(environment)
        guard FileManager.default.fileExists(atPath: vault.directory) else {
            throw CLIError("no vault at \(vault.directory): make it with 'keychainfs init \(vault.directory)'")
        }
        _ = try vault.config()
        try vault.checkPrivate()
        if let running = try? ControlClient(vault: vault).call(StatusCall()) {
            throw CLIError(
                running.mountpoint.isEmpty
                    ? "\(vault.directory) is already served on the bus by 'keychainfs secret-service' (pid \(running.pid)): nothing to start"
                    : "\(vault.directory) is already mounted at \(running.mountpoint) (daemon pid \(running.pid)): a mount made with --secret-service serves the bus already; otherwise unmount it and mount it again with --secret-service"
            )
        }
        // Started by the bus (D-Bus activation): that bus is the one to join.
        if let starter = environment["DBUS_STARTER_ADDRESS"], !starter.isEmpty {
            setenv("DBUS_SESSION_BUS_ADDRESS", starter, 1)
            environment["DBUS_SESSION_BUS_ADDRESS"] = starter
        }
        if privateBus {
            FileHandle.standardOutput.write(Data("DBUS_SESSION_BUS_ADDRESS=\(PrivateBus.address(for: vault))\n".utf8))
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var configuration = DaemonConfiguration(
            vault: vault, mountpoint: "",
            caller: Caller(accessGroups: accessGroups.isEmpty ? Caller.defaultAccessGroups : accessGroups),
            defaultAccessible: nil, deviceKeyPath: deviceKey)
        configuration.mountsFilesystem = false
        configuration.strictAccess = strict
        configuration.auditLogPath = auditLog.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        configuration.promptTimeout = TimeInterval(promptTimeout)
        configuration.secretService = SecretServiceOptions(privateBus: privateBus, replace: replace)
        let status = Daemon.run(configuration, log: Logger(label: "keychainfs"))
        if status != 0 { throw ExitCode(status) }
    }
}
