import Foundation
import KeychainEngine
import KeychainModel

/// The freedesktop Secret Service (API 0.2) on a vault: owns `org.freedesktop.secrets` on the session bus
/// (or on a bus of its own) and serves the vault as its one collection (docs/secret-service.md).
public final class SecretService: Sendable {
    public static let busName = "org.freedesktop.secrets"

    /// The address clients reach it at (DBUS_SESSION_BUS_ADDRESS).
    public let address: String
    private let connection: BusConnection
    private let privateBus: PrivateBus?
    private let objects: ServiceObjects

    /// Starts serving `keychain`. `privateBus`: start a dbus-daemon of its own (for `vault`) instead of
    /// joining DBUS_SESSION_BUS_ADDRESS; `replace`: take the name over from another owner.
    public init(
        keychain: Keychain, accessPolicy: AccessPolicy, audit: AuditLog?, enforcesAccess: Bool,
        privateBus wantsPrivateBus: Bool, replace: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BusError) {
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
        do throws(BusError) {
            let connection = try BusConnection(address: address)
            let objects = ServiceObjects(
                keychain: keychain, accessPolicy: accessPolicy, audit: audit, enforcesAccess: enforcesAccess,
                connection: connection)
            do throws(BusError) {
                try connection.serve(
                    prefix: ObjectPath.root, as: Self.busName, replace: replace,
                    handler: { call, _ in objects.handle(call) },
                    peerGone: { objects.peerGone($0) })
            } catch {
                connection.stop()
                throw error
            }
            objects.watchChanges()
            self.connection = connection
            self.objects = objects
        } catch {
            bus?.stop()
            throw error
        }
        self.address = address
        self.privateBus = bus
    }

    /// Stops serving; a private bus stops with it.
    public func stop() {
        connection.stop()
        privateBus?.stop()
    }
}
