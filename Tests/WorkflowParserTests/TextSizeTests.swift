import Foundation
import KeychainEngine
import KeychainModel
import SecretReferences
import Testing

/// Issue 22 (11): templates and env files are parsed in linear time up to a documented size, and refused
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

    /// Inputs of the limit's size that made the parsers slow; a quarter of each is parsed or refused in about
    /// a quarter of the time of all of it (linear, not quadratic: 16 times). Each size's best of three, so
    /// that other work on the machine slowing one run does not count; the absolute bound is a hang guard.
    @Test(arguments: ["{", "{{ ", "{{kc://", "}}", "\n", "=", "\"", "A=\"", "#", "\r\n", "export ", "\u{2028}"])
    func adversarialTextsOfTheLimitsSizeAreQuick(_ unit: String) {
        func seconds(_ size: Int) -> Double {
            let text = String(repeating: unit, count: size / unit.utf8.count)
            return (0..<3).map { _ in
                let start = ContinuousClock.now
                _ = try? Template.parse(text)
                _ = try? EnvironmentSpec.parseFile(text)
                let elapsed = ContinuousClock.now - start
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }.min()!
        }
        let quarter = seconds(Self.limit / 4), full = seconds(Self.limit)
        #expect(full < quarter * 8 + 0.05, "linear growth: \(quarter) s for a quarter, \(full) s for all")
        #expect(full < 20, "hang guard: \(unit.debugDescription) × \(Self.limit / unit.utf8.count): \(full) s")
    }
}
