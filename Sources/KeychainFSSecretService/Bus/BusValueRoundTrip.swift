import KeychainFSCSystemd
import Foundation

/// A message written and read back through sd-bus without a bus daemon: a connection over one end of a
/// socketpair (sd-bus makes messages only on a started connection), for the fuzz target that checks that
/// every value the service can send reads back as itself through ``BusMessageCodec``.
package final class BusValueRoundTrip {
    private let bus: OpaquePointer
    private let fds: [Int32]

    package init?() {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return nil }
        var created: OpaquePointer?
        guard sd_bus_new(&created) >= 0, let created else {
            pair.forEach { close($0) }
            return nil
        }
        guard sd_bus_set_fd(created, pair[0], pair[0]) >= 0, sd_bus_start(created) >= 0 else {
            sd_bus_unref(created)
            close(pair[1])
            return nil
        }
        bus = created
        fds = [pair[1]]
    }

    deinit {
        sd_bus_close_unref(bus)
        fds.forEach { close($0) }
    }

    /// `values` appended to a method call, sealed, and read back; nil when sd-bus refuses to write them
    /// (a value no message can hold: an invalid object path or signature, a string with a NUL).
    package func readBack(_ values: [BusValue]) -> Result<[BusValue], BusMessageCodec.Malformed>? {
        var message: OpaquePointer?
        guard
            sd_bus_message_new_method_call(
                bus, &message, "org.example.Fuzz", "/org/example/Fuzz", "org.example.Fuzz", "Call") >= 0,
            let message
        else { return nil }
        defer { sd_bus_message_unref(message) }
        guard (try? BusMessageCodec.append(values, to: message)) != nil,
            sd_bus_message_seal(message, 1, 0) >= 0, sd_bus_message_rewind(message, 1) >= 0
        else { return nil }
        do { return .success(try BusMessageCodec.arguments(of: message)) } catch { return .failure(error) }
    }
}
