import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// docs/security.md: large results and values give the same answers through the daemon as in-process,
/// and the control server is bounded in connections, time and memory.
@Suite struct ControlBoundsTests {
    static func item(_ service: String, _ account: String, _ bytes: Int) -> KeychainDictionary {
        [
            "class": "genp", "svce": .string(service), "acct": .string(account),
            "v_Data": .data(Data(repeating: UInt8(bytes % 251), count: bytes)),
        ]
    }

    static func status(_ body: () throws -> Void) -> OSStatus {
        do { try body(); return SecStatus.success } catch let error as KeychainError { return error.status } catch {
            return 1
        }
    }

    @Test func resultsOverFourMiBAndValueLimitsAreTheSameThroughTheDaemonAndInProcess() throws {
        let m = try MountedVault()
        let daemon = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        #expect(daemon.viaDaemon)
        for i in 0..<5 {
            #expect(
                Self.status { _ = try daemon.add(Self.item("big", "a\(i)", Keychain.maxValueBytes)) }
                    == SecStatus.success)
        }
        let all: KeychainDictionary = ["class": "genp", "svce": "big", "m_Limit": "m_LimitAll", "r_Data": true]
        let viaDaemon = try daemon.copyMatching(all)?.arrayValue
        #expect(
            viaDaemon?.count == 5 && viaDaemon?.allSatisfy { $0.dataValue?.count == Keychain.maxValueBytes } == true)
        let w = m.cli(["find-generic-password", "-s", "big", "-a", "a0", "-w", m.vault])
        #expect(
            w.succeeded && w.stdout.count == 2 * Keychain.maxValueBytes + 1, "hex of 1 MiB and a newline: \(w.stderr)")
        let overLimit = Self.status { _ = try daemon.add(Self.item("big", "over", Keychain.maxValueBytes + 1)) }
        let tenMiB = Self.status { _ = try daemon.add(Self.item("big", "ten", 10 << 20)) }
        #expect(overLimit == SecStatus.param && tenMiB == SecStatus.param, "\(overLimit) \(tenMiB)")
        #expect(
            Self.status {
                try daemon.update(
                    ["class": "genp", "svce": "big", "acct": "a0"], ["v_Data": .data(Data(count: 10 << 20))])
            } == SecStatus.param)

        m.unmount()
        let local = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        #expect(!local.viaDaemon)
        #expect(try local.copyMatching(all)?.arrayValue?.count == 5)
        #expect(Self.status { _ = try local.add(Self.item("big", "over", Keychain.maxValueBytes + 1)) } == overLimit)
        #expect(Self.status { _ = try local.add(Self.item("big", "ten", 10 << 20)) } == tenMiB)
        #expect(
            Self.status {
                try local.update(
                    ["class": "genp", "svce": "big", "acct": "a0"], ["v_Data": .data(Data(count: 10 << 20))])
            } == SecStatus.param)
    }

    /// A request that trickles in is cut off at the request deadline, however steadily it trickles.
    @Test(.timeLimit(.minutes(3))) func aTricklingRequestIsCutOffAtItsDeadline() throws {
        let m = try MountedVault()
        let c = try #require(RawControl(path: ControlSocket.path(for: Vault(directory: m.vault))))
        defer { c.close() }
        let started = Date()
        #expect(c.send(withUnsafeBytes(of: UInt32(3 << 20).bigEndian) { Data($0) }))
        var cutOff: TimeInterval?
        while Date().timeIntervalSince(started) < 25 {
            usleep(200_000)
            if !c.send(Data([0])) { cutOff = Date().timeIntervalSince(started); break }
        }
        let after = try #require(cutOff, "the server still reads after 25 s")
        #expect(after < ControlServer.requestSeconds + 5)
        #expect(m.control.isDaemonRunning)
    }

    /// At most ``ControlServer/workers`` large replies are built at once (the rest wait); clients that never
    /// read their large replies are dropped after the send timeout, and the daemon serves again.
    @Test(.timeLimit(.minutes(3))) func connectionsAreCappedAndNonReadersAreDropped() throws {
        let m = try MountedVault()
        let pid = try #require(m.daemonPID)
        let socketPath = ControlSocket.path(for: Vault(directory: m.vault))
        let baseline = Self.openSockets(pid)
        for i in 0..<3 {
            _ = try m.control.send(
                ControlRequest(.itemAdd, ["query": .dictionary(Self.item("big", "a\(i)", Keychain.maxValueBytes))])
            ).check()
        }
        let query: KeychainDictionary = [
            "query": .dictionary(["class": "genp", "svce": "big", "m_Limit": "m_LimitAll", "r_Data": true])
        ]

        var connections: [RawControl] = []
        defer { connections.forEach { $0.close() } }
        for _ in 0..<60 {
            let c = try #require(RawControl(path: socketPath))
            c.request("item.copy-matching", query)  // ~3 MiB of reply each, never read
            connections.append(c)
        }
        usleep(1_500_000)
        let held = Self.openSockets(pid) - baseline
        #expect(held <= ControlServer.maxWaitingPerUser + 1, "at most the cap is held: \(held)")
        // Three times the cap of connections whose replies are never read: the oldest are dropped, and the
        // replies in memory stay bounded.
        for _ in 0..<(ControlServer.maxConnectionsPerUser * 3) {
            guard let c = RawControl(path: socketPath) else { continue }
            c.request("item.copy-matching", query)
            connections.append(c)
        }
        usleep(1_500_000)
        #expect(
            Self.openSockets(pid) - baseline <= ControlServer.maxConnectionsPerUser + 1,
            "\(Self.openSockets(pid) - baseline) held")
        #expect(Self.residentMiB(pid) < 800, "replies nobody reads do not pile up: \(Self.residentMiB(pid)) MiB")
        let rss = Self.residentMiB(pid)
        #expect(rss < 600, "resident memory stays bounded: \(rss) MiB")
        // Every non-reader is dropped after the send timeout, batch after batch; then the daemon answers again.
        let drained = m.wait(Double(ControlServer.requestSeconds) * 4) { Self.openSockets(pid) <= baseline }
        #expect(drained, "non-readers are dropped: \(Self.openSockets(pid) - baseline) left")
        connections.forEach { $0.close() }
        connections.removeAll()
        #expect(m.wait(10) { m.control.isDaemonRunning })
    }

    static func openSockets(_ pid: Int32) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.filter {
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "").hasPrefix(
                "socket:")
        }.count
    }

    static func residentMiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
