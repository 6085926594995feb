import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Every number the `security` verbs (and SecItem calls) store is checked by the schema's
/// range, on every way in.
@Suite struct NumericRangeTests {
    /// errSecParam (-50) as the verbs exit: the OSStatus's low byte.
    static let paramExit = Int32(UInt8(truncatingIfNeeded: SecStatus.param))
    let v = UnmountedVault("ranges")

    @Test func everyNumericOptionIsCheckedByTheSchema() throws {
        defer { v.remove() }
        for port in ["70000", "65536", "4294967297", "-1"] {
            let added = v.security([
                "add-internet-password", "-s", "range.example.com", "-a", "p" + port, "-P", port, "-w", "pw",
            ])
            #expect(
                added.status == Self.paramExit || (port == "-1" && added.status == 64),
                "-P \(port): errSecParam (a usage error for -1), not \(added.status)")
            #expect(added.stderr.contains("port") || added.stderr.contains("-P"), "\(added.stderr)")
            #expect(
                v.security(["find-internet-password", "-s", "range.example.com", "-a", "p" + port]).status != 0,
                "nothing stored")
        }
        try expectSuccess(
            v.security(["add-internet-password", "-s", "range.example.com", "-a", "top", "-P", "65535", "-w", "pw"]))
        #expect(
            v.security(["find-internet-password", "-s", "range.example.com", "-P", "65535", "-w"]).stdout == "pw\n")
        #expect(
            v.security(["find-internet-password", "-s", "range.example.com", "-P", "70000"]).status == Self.paramExit,
            "a query is checked too")
        // The same schema checks every other path in: SecItem calls, the control socket, the mount.
        try v.withConnection { connection in
            let outOfRange: [(String, KeychainValue, String)] = [
                ("port", 70000, "inet"), ("port", -1, "inet"), ("crtr", .number(1 << 32), "genp"),
                ("type", -1, "genp"), ("invi", 2, "genp"), ("nega", 7, "inet"),
            ]
            for (code, value, classCode) in outOfRange {
                let error = #expect(throws: KeychainError.self, "\(code) = \(value)") {
                    _ = try connection.add([
                        "class": .string(classCode), "acct": "n", code: value, "v_Data": .data(Data("x".utf8)),
                    ])
                }
                #expect(
                    error?.status == SecStatus.param && error?.message.contains(code) == true, "\(error?.message ?? "")"
                )
            }
        }
    }
}
