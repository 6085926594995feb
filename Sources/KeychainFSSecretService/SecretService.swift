import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// The freedesktop Secret Service (API 0.2) on a vault: owns `org.freedesktop.secrets` on the session bus
/// (or on a bus of its own) and serves the vault as its one collection (docs/secret-service.md).
package final class SecretService: Sendable {
    package static let busName = "org.freedesktop.secrets"

    /// The address clients reach it at (DBUS_SESSION_BUS_ADDRESS).
    package let address: String
    private let link: BusLink
    private let objects: ServiceObjects
    private let vault: Vault
    private let replace: Bool
    /// The private bus, restarted at the same address when it dies; nil after ``stop()`` (or without one).
    private let privateBus: Mutex<(bus: PrivateBus?, stopped: Bool)>
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let busEnded: (@Sendable () -> Void)?
    /// Whether the daemon mounts the vault too (what its log says goes on when the bus goes away).
    private let servesMount: Bool

    /// The waits between reconnection attempts: from 250 ms, doubling, at most 30 s.
    static let firstReconnectDelay: TimeInterval = 0.25
    static let maxReconnectDelay: TimeInterval = 30

    /// Starts serving `keychain`. `privateBus`: start a dbus-daemon of its own (for `vault`) instead of
    /// joining DBUS_SESSION_BUS_ADDRESS; `replace`: take the name over from another owner. When the bus
    /// goes away, `busEnded` is called if given (a daemon that serves only the bus ends with it); without
    /// it the service reconnects to the same address (restarting a private bus there) until ``stop()``.
    package init(
        keychain: Keychain, accessPolicy: AccessPolicy, audit: AuditLog?, enforcesAccess: Bool,
        privateBus wantsPrivateBus: Bool, replace: Bool, servesMount: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        busEnded: (@Sendable () -> Void)? = nil
    ) throws(BusError) {
        self.servesMount = servesMount
        let bus = try wantsPrivateBus ? PrivateBus(vault: keychain.vault) : nil
        let address: String
        if let bus {
            address = bus.address
        } else if let session = environment["DBUS_SESSION_BUS_ADDRESS"], !session.isEmpty {
            address = session
        } else if let runtime = environment["XDG_RUNTIME_DIR"], FileManager.default.fileExists(atPath: runtime + "/bus")
        {
            address = "unix:path=" + runtime + "/bus"
        } else {
            throw BusError.failed(
                "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): pass --private-bus to start one")
        }
        let connection: BusConnection
        do throws(BusError) {
            connection = try BusConnection(address: address)
        } catch {
            bus?.stop()
            throw error
        }
        link = BusLink(connection)
        objects = ServiceObjects(
            keychain: keychain, accessPolicy: accessPolicy, audit: audit, enforcesAccess: enforcesAccess, link: link)
        vault = keychain.vault
        self.replace = replace
        self.address = address
        self.privateBus = Mutex((bus, false))
        self.busEnded = busEnded
        do throws(BusError) {
            try serve(connection)
        } catch {
            stop()
            throw error
        }
        objects.watchChanges()
    }

    /// Stops serving; a private bus stops with it.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        link.close().stop()
        privateBus.withLock { state in
            state.bus?.stop()
            state = (nil, true)
        }
    }

    private func serve(_ connection: BusConnection) throws(BusError) {
        let objects = self.objects
        let testDevice = (try? vault.config())?.testDevice ?? false
        connection.allowsReplacement = TestSwitches.isOff(Self.nameGuardSwitch, testDevice: testDevice)
        connection.bindsPeersOnArrival = AccessPolicy.bindsConnections(testDevice: testDevice)
        let bus = privateBus.withLock { $0.bus }
        try connection.serve(
            prefix: ObjectPath.root, as: Self.busName, replace: replace,
            handler: { call, connection in objects.handle(call, on: connection) },
            peerGone: { objects.peerGone($0) },
            ended: { [weak self] reason in self?.busWentAway(reason) },
            owned: connection.allowsReplacement
                ? nil : { connection throws(BusError) in try bus?.lockOwnership(connection) })
    }

    /// `KEYCHAINFS_TEST_DISABLE_GUARDS=bus-name`: for a test device only, the name is owned allowing
    /// replacement and a private bus lets any connection ask for it, as it once could, so that
    /// the test of the takeover shows it can fail.
    package static let nameGuardSwitch = "bus-name"

    /// The bus connection ended under a running service (the bus daemon stopped or crashed): the
    /// clients' sessions and prompts are gone with it; the mount goes on, and the service reconnects.
    private func busWentAway(_ reason: String) {
        guard !stopping.load(ordering: .acquiring) else { return }
        objects.forgetClients()
        if let busEnded {
            Self.say("the bus connection ended (\(reason)); the daemon serves only the bus, so it stops")
            busEnded()
            return
        }
        Self.say(
            "the bus connection ended (\(reason)); \(servesMount ? "the mount and the control socket go" : "the control socket goes") on; reconnecting to \(address)"
        )
        let thread = Thread { [self] in reconnect() }
        thread.name = "secret-service-reconnect"
        thread.start()
    }

    /// Tries again, with waits from ``firstReconnectDelay`` doubling to ``maxReconnectDelay``, until it
    /// serves again or ``stop()``: a private bus is started again at its address first.
    private func reconnect() {
        var delay = Self.firstReconnectDelay
        var attempts = 0
        while wake.wait(timeout: .now() + delay) == .timedOut, !stopping.load(ordering: .acquiring) {
            attempts += 1
            do throws(BusError) {
                try restartPrivateBus()
                let connection = try BusConnection(address: Self.withoutGUID(address))
                do throws(BusError) { try serve(connection) } catch {
                    connection.stop()
                    throw error
                }
                guard let old = link.replace(with: connection) else {
                    connection.stop()  // stopped meanwhile
                    return
                }
                old.stop()
                Self.say("serving \(Self.busName) again on \(address) (after \(attempts) attempts)")
                return
            } catch {
                if attempts == 1 || attempts.isMultiple(of: 10) {
                    Self.say("cannot reconnect yet (\(error.message)); trying again")
                }
                delay = min(delay * 2, Self.maxReconnectDelay)
            }
        }
    }

    /// `address` without its `guid=` keys: a bus started again at the same path has a new GUID, and sd-bus
    /// refuses a server whose GUID is not the one the address names.
    static func withoutGUID(_ address: String) -> String {
        address.split(separator: ";").map { entry in
            guard let colon = entry.firstIndex(of: ":") else { return String(entry) }
            let keys = entry[entry.index(after: colon)...].split(separator: ",").filter { !$0.hasPrefix("guid=") }
            return entry[...colon] + keys.joined(separator: ",")
        }.joined(separator: ";")
    }

    /// A private bus that died is started again at the same address (the one its clients exported).
    private func restartPrivateBus() throws(BusError) {
        let vault = self.vault
        let outcome: Result<Void, BusError> = privateBus.withLock { state in
            guard !state.stopped, let old = state.bus, !old.isRunning else { return .success(()) }
            old.stop()
            state.bus = nil
            do throws(BusError) {
                state.bus = try PrivateBus(vault: vault)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// A line in the daemon's log (its standard error).
    static func say(_ message: String) {
        FileHandle.standardError.write(Data("keychainfs: secret service: \(message)\n".utf8))
    }
}
