import Foundation
import KeychainFSFuzzHarness
import Testing

/// Every committed input of every fuzz target (seeds, and each crash the fuzzers found, kept as a
/// regression) replayed on the plain build: no crash and no broken property.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus").path

    @Test(arguments: FuzzTarget.allCases)
    func corpusReplays(_ target: FuzzTarget) throws {
        let folder = Self.corpus + "/" + target.rawValue
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count >= 3, "the \(target.rawValue) corpus is committed")
        for name in names {
            let data = try #require(FileManager.default.contents(atPath: folder + "/" + name))
            #expect(throws: Never.self, "\(target.rawValue)/\(name)") { try target.run(data) }
        }
    }
}
