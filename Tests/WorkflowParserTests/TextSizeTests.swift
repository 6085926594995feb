import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences
import Testing
import KeychainFSTestSupport

/// docs/workflows.md: templates and env files are parsed in linear time up to a documented size, and refused
/// beyond it before parsing.
@Suite(.serialized) struct TextSizeTests {
    /// The documented limit of a template or env file (docs/workflows.md).
    static let limit = 1 << 20

    @Test func aTextOverTheLimitIsRefusedBeforeParsing() {
        let big = String(repeating: "{", count: Self.limit + 1)
        let template = #expect(throws: ReferenceSyntaxError.self) { try Template.parse(big) }
        #expect(template?.reason.contains("1 MiB") == true, "\(template?.reason ?? "")")
        #expect((template?.text.count ?? .max) < 100, "the error does not echo the whole text")
        let env = #expect(throws: ReferenceSyntaxError.self) {
            try EnvironmentSpec.parseFile(String(repeating: "A", count: Self.limit + 1))
        }
        #expect(env?.reason.contains("1 MiB") == true)
        #expect(throws: Never.self) { try Template.parse(String(repeating: "x", count: Self.limit)) }
        let line = #expect(throws: ReferenceSyntaxError.self) {
            try EnvironmentSpec.parseFile(String(repeating: "A", count: Self.limit))
        }
        #expect((line?.description.count ?? .max) < 200, "a one-line file without '=' gives a short message")
    }

    /// Inputs of the limit's size that made the parsers slow; all of each is parsed or refused in about four
    /// times the CPU time of a quarter (linear; quadratic would be 16 times), which other work on the machine
    /// does not change; each size's best of three. The wall clock bounds it only as a hang guard.
    @Test(arguments: ["{", "{{ ", "{{kc://", "}}", "\n", "=", "\"", "A=\"", "#", "\r\n", "export ", "\u{2028}"])
    func adversarialTextsOfTheLimitsSizeAreQuick(_ unit: String) {
        func seconds(_ text: String) -> Double {
            threadCPUSeconds {
                _ = try? Template.parse(text)
                _ = try? EnvironmentSpec.parseFile(text)
            }
        }
        let count = Self.limit / unit.utf8.count
        let quarterText = String(repeating: unit, count: count / 4), fullText = String(repeating: unit, count: count)
        let started = ContinuousClock.now
        var quarter = Double.infinity, full = Double.infinity
        for _ in 0..<3 {
            quarter = min(quarter, seconds(quarterText))
            full = min(full, seconds(fullText))
        }
        print("\(unit.debugDescription): a quarter in \(quarter) s of CPU, all in \(full) s")
        #expect(full < quarter * 8 + 0.02, "linear growth: \(quarter) s for a quarter, \(full) s for all (CPU)")
        #expect(ContinuousClock.now - started < .seconds(120), "hang guard: \(unit.debugDescription) × \(count)")
    }
}
