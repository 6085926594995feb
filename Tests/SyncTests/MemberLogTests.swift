import Foundation
@testable import KeychainFSSync
import Testing
import KeychainFSTestSupport

/// The membership log's rules and bounds, on logs made in memory (docs/sync.md).
@Suite("membership log: the chain, its rules, its bounds")
struct MemberLogTests {
    let founder = SyncIdentity.generate(name: "founder"), other = SyncIdentity.generate(name: "other")

    func entry(
        _ operation: MemberLogEntry.Operation, _ subject: MemberKeys?, after log: [MemberLogEntry],
        by signer: SyncIdentity,
        epoch: Int? = nil, keyring: Data = Data(repeating: 7, count: 32)
    ) -> MemberLogEntry {
        let last = log.last
        var entry = MemberLogEntry(
            sequence: log.count, previous: last?.hash ?? Data(), operation: operation, subject: subject,
            epoch: epoch ?? (last?.epoch ?? 1), keyring: keyring, signer: signer.keys.signingKey,
            date: Date(timeIntervalSinceReferenceDate: 1e8))
        entry.signature = signer.sign(entry.signedBytes)
        return entry
    }

    func founded() -> [MemberLogEntry] { [entry(.found, founder.keys, after: [], by: founder)] }

    @Test("a log of the largest size verifies in bounded time; one entry more is refused")
    func bounds() throws {
        var log = founded()
        while log.count < MemberLog.maxEntries {
            log.append(entry(.rotate, nil, after: log, by: founder, epoch: log.last!.epoch + 1))
        }
        let bytes = MemberLog.encode(log)
        // A quarter of the log, verified in the same test, is the control: the whole takes about four times
        // its CPU time (linear), whatever else runs on the machine; the wall clock is a hang guard only.
        let quarter = MemberLog.encode(Array(log.prefix(MemberLog.maxEntries / 4)))
        let control = try threadCPUSeconds { _ = try MemberLog.verify(quarter) }
        let started = Date()
        var membership: Membership?
        let cpu = try threadCPUSeconds { membership = try MemberLog.verify(bytes) }
        let took = Date().timeIntervalSince(started)
        #expect(membership?.epoch == MemberLog.maxEntries)
        #expect(cpu < control * 8 + 0.05, "linear: a quarter in \(control) s, \(log.count) entries in \(cpu) s (CPU)")
        #expect(took < 100, "hang guard: verifying \(log.count) entries (\(bytes.count) bytes) took \(took) s")
        print("verified \(log.count) entries, \(bytes.count) bytes, in \(String(format: "%.3f", took)) s")
        log.append(entry(.rotate, nil, after: log, by: founder, epoch: log.last!.epoch + 1))
        #expect(throws: SyncFormatError.self) { try MemberLog.verify(MemberLog.encode(log)) }
    }

    @Test("refused: a bad signature, a non-member's entry, a broken chain, removing the last member, a second founding")
    func rules() throws {
        let base = founded()
        var bad = entry(.add, other.keys, after: base, by: founder)
        bad.signature[0] ^= 1
        let cases: [(String, [MemberLogEntry])] = [
            ("bad signature", base + [bad]),
            ("non-member", base + [entry(.add, other.keys, after: base, by: other)]),
            ("does not follow", base + [entry(.rotate, nil, after: [], by: founder, epoch: 2)]),
            ("may not remove", base + [entry(.remove, founder.keys, after: base, by: founder, epoch: 2)]),
            ("founds the circle again", base + [entry(.found, other.keys, after: base, by: founder)]),
        ]
        for (reason, log) in cases {
            #expect {
                _ = try MemberLog.verify(MemberLog.encode(log))
            } throws: { error in
                (error as? SyncFormatError)?.message.contains(reason) == true
            }
        }
        let added = base + [entry(.add, other.keys, after: base, by: founder)]
        let removed = added + [entry(.remove, other.keys, after: added, by: founder, epoch: 2)]
        let membership = try MemberLog.verify(MemberLog.encode(removed))
        #expect(membership.current.map(\.keys) == [founder.keys] && membership.epoch == 2)
        #expect(!membership.accepts(signer: other.keys.signingKey, epoch: 1), "a removed member's records are refused")
        #expect(membership.extends(try MemberLog.verify(MemberLog.encode(added))))
        #expect(
            try !MemberLog.verify(MemberLog.encode(added)).extends(membership),
            "a shorter log does not extend a longer one")
    }
}
