import KeychainFSCSystemd
import Foundation
import KeychainFSEngine
import Synchronization

/// A method call as the service sees it.
package struct BusCall: Sendable {
    package var sender: String
    package var path: String
    package var interface: String
    package var member: String
    package var arguments: [BusValue]
}

/// A D-Bus error reply: its name (org.freedesktop.Secret.Error.IsLocked, …) and a message for people.
package struct BusError: Error, Sendable, Equatable {
    package var name: String
    package var message: String
    package init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    package static func invalidArgs(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.InvalidArgs", message)
    }
    package static func accessDenied(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.AccessDenied", message)
    }
    package static func failed(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.Failed", message) }
    package static func unknownMethod(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownMethod", message)
    }
    package static func isLocked(_ message: String) -> BusError {
        BusError("org.freedesktop.Secret.Error.IsLocked", message)
    }
    package static func noSession(_ message: String) -> BusError {
        BusError("org.freedesktop.Secret.Error.NoSession", message)
    }
    package static func noSuchObject(_ message: String) -> BusError {
        BusError("org.freedesktop.Secret.Error.NoSuchObject", message)
    }
}

/// A signal to send.
package struct BusSignal: Sendable {
    package var path: String
    package var interface: String
    package var member: String
    package var arguments: [BusValue]
    package init(path: String, interface: String, member: String, arguments: [BusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// One connection to a message bus through sd-bus, served by a thread of its own. sd-bus is not
/// thread-safe: only that thread touches the connection; others hand it signals through ``emit(_:)``,
/// which wakes it through a pipe. It waits in poll(2) with sd-bus's own timeout, at most
/// ``pollPeriod``, so ``stop()`` returns promptly.
package final class BusConnection: @unchecked Sendable {
    package typealias Handler = @Sendable (BusCall, BusConnection) -> Result<[BusValue], BusError>
    static let pollPeriod: Int32 = 250  // milliseconds

    private let bus: OpaquePointer
    private var handler: Handler?
    private var peerGone: (@Sendable (String) -> Void)?
    private let outgoing = Mutex<[BusSignal]>([])
    private let wake: (read: Int32, write: Int32)
    private let stopping = Atomic<Bool>(false)
    /// The serving thread ended because the bus went away: signals are dropped, not queued.
    private let ended = Atomic<Bool>(false)
    private var connectionEnded: (@Sendable (String) -> Void)?
    private let finished = DispatchSemaphore(value: 0)
    private var running = false

    /// Connects to the bus at `address` (a D-Bus address such as `unix:path=/run/user/0/bus`).
    package init(address: String) throws(BusError) {
        var bus: OpaquePointer?
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { throw BusError.failed("sd_bus_new: \(Self.describe(result))") }
        self.bus = bus
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            sd_bus_unref(bus)
            throw BusError.failed("pipe: \(String(cString: strerror(errno)))")
        }
        wake = (fds[0], fds[1])
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        result = sd_bus_set_address(bus, address)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            close()
            throw BusError.failed("cannot connect to the D-Bus session bus at \(address): \(Self.describe(result))")
        }
    }

    /// Owns `name`, never allowing another connection to replace it (docs/secret-service.md, "Starting it": a refused
    /// process took the name with replace-existing and received the next CreateItem's secret). Another
    /// owner is an error that names it (its pid and executable), unless `replace` asks the bus to take the
    /// name over from an owner that allows it (gnome-keyring does; a keychainfs vault does not, and gives
    /// the name up only when its Secret Service stops). `allowsReplacement` is a test switch's.
    private func requestName(_ name: String, replace: Bool) throws(BusError) {
        let flags =
            (allowsReplacement ? UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT) : 0)
            | (replace ? UInt64(SD_BUS_NAME_REPLACE_EXISTING) : 0)
        let result = sd_bus_request_name(bus, name, flags)
        if result == -EEXIST {
            throw BusError.failed(
                "\(name) is already owned on this bus by \(owner(of: name)); "
                    + (replace
                        ? "it does not allow replacement (a keychainfs vault gives the name up only when its Secret Service stops: keychainfs unmount)"
                        : "stop it or pass --replace to take the name over"))
        }
        guard result >= 0 else { throw BusError.failed("cannot own \(name): \(Self.describe(result))") }
    }

    /// Whether the name is owned allowing replacement, as it once was: a test device's switch only.
    package var allowsReplacement = false

    /// Asks the bus to read its configuration again (org.freedesktop.DBus.ReloadConfig): a private bus's
    /// new rules apply from the next request on. Before ``serve(prefix:as:replace:handler:peerGone:ended:)``
    /// starts its thread, or on that thread.
    package func reloadBusConfiguration() throws(BusError) {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(
            bus, &message, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
        guard result >= 0, let message else { throw BusError.failed("ReloadConfig: \(Self.describe(result))") }
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        result = sd_bus_call(bus, message, 5_000_000, &error, &reply)
        if let reply { sd_bus_message_unref(reply) }
        guard result >= 0 else {
            throw BusError.failed("the bus did not reload its configuration: \(Self.describe(result))")
        }
    }

    /// Who owns `name`: its pid and executable, as the bus reports them.
    private func owner(of name: String) -> String {
        var creds: OpaquePointer?
        guard sd_bus_get_name_creds(bus, name, UInt64(SD_BUS_CREDS_PID), &creds) >= 0, let creds else {
            return "another connection"
        }
        defer { sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        guard sd_bus_creds_get_pid(creds, &pid) >= 0 else { return "another connection" }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? "?"
        return "pid \(pid) (\(executable))"
    }

    /// The process behind a unique bus name, from the bus itself (never from what the peer claims), bound to
    /// what it ran when this connection first saw the name (``PeerProcess/connectedAs``): the name is bound
    /// as it appears on the bus (NameOwnerChanged), else at its first call. A unique name is one connection
    /// of one process and is never reused on a bus, so the answer is kept until the peer leaves
    /// (``forget(_:)``): one question to the bus per client, not one per call. Bus thread only.
    package func peer(_ sender: String) -> PeerProcess? {
        if let known = peers[sender] { return known }
        guard let asked = askPeer(sender) else { return nil }
        if peers.count >= Self.maxRememberedPeers { peers.removeAll() }
        let bound = PeerProcess.connecting(pid: asked.pid, uid: asked.uid)
        peers[sender] = bound
        return bound
    }

    /// Drops what ``peer(_:)`` kept of a peer that left the bus.
    func forget(_ sender: String) { peers[sender] = nil }

    private var peers: [String: PeerProcess] = [:]
    static let maxRememberedPeers = 4096

    private func askPeer(_ sender: String) -> (pid: Int32, uid: UInt32)? {
        var creds: OpaquePointer?
        let mask = UInt64(SD_BUS_CREDS_PID) | UInt64(SD_BUS_CREDS_EUID)
        guard sd_bus_get_name_creds(bus, sender, mask, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        var uid: uid_t = 0
        guard sd_bus_creds_get_pid(creds, &pid) >= 0, sd_bus_creds_get_euid(creds, &uid) >= 0 else { return nil }
        return (pid, uid)
    }

    /// Serves method calls on `prefix` and every path below it with `handler`, and reports peers that
    /// leave the bus to `peerGone`, on the connection's thread, until ``stop()``; `ended` hears (once, with
    /// the reason) that the bus went away under it. The objects are in place before `name` is owned
    /// (``requestName(_:replace:)``), so no client that finds the name misses them.
    package func serve(
        prefix: String, as name: String, replace: Bool, handler: @escaping Handler,
        peerGone: @escaping @Sendable (String) -> Void, ended: @escaping @Sendable (String) -> Void,
        owned: ((BusConnection) throws(BusError) -> Void)? = nil
    ) throws(BusError) {
        self.handler = handler
        self.peerGone = peerGone
        connectionEnded = ended
        let me = Unmanaged.passUnretained(self).toOpaque()
        var result = sd_bus_add_fallback(
            bus, nil, prefix,
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                return Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().dispatch(message)
            }, me)
        guard result >= 0 else { throw BusError.failed("cannot serve \(prefix): \(Self.describe(result))") }
        result = sd_bus_match_signal(
            bus, nil, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().nameOwnerChanged(message)
                return 0
            }, me)
        guard result >= 0 else { throw BusError.failed("cannot watch peers: \(Self.describe(result))") }
        // A name lost all the same (a bus that lets an owner go, a test switch) is said in the daemon's log and
        // asked for again in the queue: the vault has it back as soon as the other owner leaves.
        _ = sd_bus_match_signal(
            bus, nil, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameLost",
            { message, userdata, _ in
                guard let message, let userdata, let arguments = try? BusMessageCodec.arguments(of: message),
                    let lost = arguments.first?.stringValue
                else { return 0 }
                FileHandle.standardError.write(
                    Data(
                        "keychainfs: secret service: another program took \(lost) over; this vault asks for it back and serves it again when that program leaves\n"
                            .utf8))
                Unmanaged<BusConnection>.fromOpaque(userdata).takeUnretainedValue().queueFor(lost)
                return 0
            }, me)
        try requestName(name, replace: replace)
        try owned?(self)
        running = true
        let thread = Thread { [self] in loop() }
        thread.name = "secret-service-bus"
        thread.start()
    }

    /// Asks for `name` again, queued behind its owner (bus thread).
    private func queueFor(_ name: String) {
        _ = sd_bus_request_name_async(bus, nil, name, UInt64(SD_BUS_NAME_QUEUE), nil, nil)
    }

    /// Sends `signal` from the connection's thread (soon; in the order of the calls).
    package func emit(_ signal: BusSignal) {
        guard !ended.load(ordering: .acquiring) else { return }
        outgoing.withLock { $0.append(signal) }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Stops serving (the thread ends within one poll period) and closes the connection.
    package func stop() {
        if running, !stopping.exchange(true, ordering: .acquiringAndReleasing) {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
            _ = finished.wait(timeout: .now() + 5)
        }
        close()
    }

    private var closed = false
    private func close() {
        guard !closed else { return }
        closed = true
        sd_bus_flush_close_unref(bus)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private func loop() {
        defer { finished.signal() }
        while !stopping.load(ordering: .acquiring) {
            for signal in outgoing.withLock({ pending in
                defer { pending.removeAll() }; return pending
            }) { send(signal) }
            var processed: Int32
            repeat { processed = sd_bus_process(bus, nil) } while processed > 0 && !stopping.load(ordering: .acquiring)
            if processed < 0 {
                ended.store(true, ordering: .releasing)
                outgoing.withLock { $0.removeAll() }
                connectionEnded?(Self.describe(processed))
                return
            }
            var fds = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, 2, waitMilliseconds())
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &drain, drain.count) > 0 {}
        }
    }

    /// Until sd-bus's next deadline (an absolute CLOCK_MONOTONIC time), at most one poll period.
    private func waitMilliseconds() -> Int32 {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return Self.pollPeriod }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicroseconds else { return 0 }
        return Int32(min(UInt64(Self.pollPeriod), (deadline - nowMicroseconds + 999) / 1000))
    }

    private func send(_ signal: BusSignal) {
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &message, signal.path, signal.interface, signal.member) >= 0, let message
        else { return }
        defer { sd_bus_message_unref(message) }
        guard (try? BusMessageCodec.append(signal.arguments, to: message)) != nil else { return }
        _ = sd_bus_send(bus, message, nil)
    }

    private func dispatch(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0, let handler else { return 0 }
        let string = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } ?? "" }
        let outcome: Result<[BusValue], BusError>
        do {
            let call = BusCall(
                sender: string(sd_bus_message_get_sender(message)), path: string(sd_bus_message_get_path(message)),
                interface: string(sd_bus_message_get_interface(message)),
                member: string(sd_bus_message_get_member(message)),
                arguments: try BusMessageCodec.arguments(of: message))
            outcome = handler(call, self)
        } catch {
            outcome = .failure(.invalidArgs(error.message))
        }
        guard sd_bus_message_get_expect_reply(message) > 0 else { return 1 }
        var reply: OpaquePointer?
        switch outcome {
        case .success(let values):
            guard sd_bus_message_new_method_return(message, &reply) >= 0, let built = reply else { return 1 }
            if (try? BusMessageCodec.append(values, to: built)) == nil {
                sd_bus_message_unref(built)
                reply = nil
                return replyError(message, .failed("the answer could not be encoded"))
            }
        case .failure(let error):
            return replyError(message, error)
        }
        if let reply {
            _ = sd_bus_send(bus, reply, nil)
            sd_bus_message_unref(reply)
        }
        return 1
    }

    private func replyError(_ message: OpaquePointer, _ error: BusError) -> Int32 {
        var busError = sd_bus_error()
        defer { sd_bus_error_free(&busError) }
        _ = sd_bus_error_set(&busError, error.name, error.message)
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_error(message, &reply, &busError) >= 0, let reply else { return 1 }
        _ = sd_bus_send(bus, reply, nil)
        sd_bus_message_unref(reply)
        return 1
    }

    /// A unique name appeared (bound now, while its process most likely runs what connected: see
    /// docs/threat-model.md for the window a stopped daemon leaves) or left the bus.
    private func nameOwnerChanged(_ message: OpaquePointer) {
        guard let arguments = try? BusMessageCodec.arguments(of: message), arguments.count == 3,
            let name = arguments[0].stringValue, name.hasPrefix(":")
        else { return }
        if arguments[1].stringValue == "", arguments[2].stringValue == name {
            if bindsPeersOnArrival { _ = peer(name) }
            return
        }
        guard arguments[2].stringValue == "" else { return }
        forget(name)
        peerGone?(name)
    }

    /// Whether every connection that appears on the bus is bound at once (off for a test of the binding).
    package var bindsPeersOnArrival = true

    static func describe(_ result: Int32) -> String { String(cString: strerror(-result)) }
}
