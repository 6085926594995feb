import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences
import Testing

/// docs/workflows.md: the texts of run, inject and access.toml end their lines at `\n` or `\r\n` only.
@Suite struct LineEndingTests {
    @Test func envFileLinesEndOnlyAtLineFeed() throws {
        let spec = try EnvironmentSpec.parseFile(
            "F=a\u{2028}G=kc://genp/s/a\nH=b\u{85}I=c\u{0B}J=d\u{0C}K=e\r\nL=f\rM=g\n")
        #expect(spec.variables.map(\.name) == ["F", "H", "L"], "U+2028, NEL, VT, FF and a lone CR end no line")
        #expect(
            spec.variables.first?.value == .literal("a\u{2028}G=kc://genp/s/a"),
            "G is not defined: the reference stays F's text")
        #expect(
            spec.variables.dropFirst().first?.value == .literal("b\u{85}I=c\u{0B}J=d\u{0C}K=e"),
            "\\r\\n ends a line, its \\r is not kept")
        #expect(spec.variables.last?.value == .literal("f\rM=g"))
        let error = #expect(throws: ReferenceSyntaxError.self) {
            try EnvironmentSpec.parseFile("A=1\u{2028}\n\n1X=2\n")
        }
        #expect(error?.line == 3, "lines are counted by \\n")
    }

    @Test func templateLinesAreCountedByLineFeed() {
        let error = #expect(throws: ReferenceSyntaxError.self) {
            try Template.parse("a\u{2028}b\u{85}c\nd {{ kc://genp/s/a\n")
        }
        #expect(error?.line == 2)
    }

    @Test func accessFileLinesEndOnlyAtLineFeed() throws {
        // Split at U+2028, the rule below would match /usr/bin/x; on one line it is malformed.
        for separator in ["\u{2028}", "\u{85}", "\u{0B}", "\u{0C}", "\r"] {
            let text = "[[rule]]\(separator)exe = \"/usr/bin/x\"\ngroups = [\"g\"]\n"
            let error = #expect(throws: AccessPolicyFile.SyntaxError.self, "\(text.debugDescription)") {
                try AccessPolicyFile.parse(text)
            }
            #expect(error?.line == 1)
        }
        #expect(try AccessPolicyFile.parse("[[rule]]\r\nexe = \"/usr/bin/x\"\r\ngroups = [\"g\"]\r\n").count == 1)
    }
}
