import Foundation
import Testing
import KeychainFSTestSupport

/// A member's name is printed one a line (`sync members`, notes, audit): it holds no character any reader
/// takes for a line's end, U+2028 and U+2029 included (docs/sync.md).
@Suite("sync member names", .serialized)
struct MemberNameTests {
    @Test(
        "a name holding a line or paragraph separator is refused; an ordinary one is kept and printed as it is",
        arguments: ["laptop\u{2028}fake", "laptop\u{2029}fake", "laptop\u{85}fake", "laptop\nfake", "laptop\rfake"])
    func separatorsRefused(name: String) throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1")
        let refused = group.cli(["sync", "init", group.remote, "--vault", v1, "--name", name])
        #expect(!refused.succeeded && refused.stderr.contains("printable"), "\(refused.stderr)")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1, "--name", "laptop é"]))
        let members = group.cli(["sync", "members", "--vault", v1])
        #expect(members.stdout.hasPrefix("laptop é\t") && members.stdout.split(separator: "\n").count == 1)
    }
}
