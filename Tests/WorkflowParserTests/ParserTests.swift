import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences
import Testing

/// The pure parsers of run, inject and access.toml (the fuzz targets' entry points).
@Suite struct ParserTests {
    @Test func references() throws {
        let r = try SecretReference.parse("kc://inet/example.com/alice;port=8443;ptcl=htps#kSecAttrLabel")
        #expect(
            r.classCode == "inet" && r.groupName == "example.com" && r.itemName == "alice;port=8443;ptcl=htps"
                && r.attribute == "kSecAttrLabel")
        let hash = try SecretReference.parse("kc://genp/svc/a#b")
        #expect(hash.itemName == "a#b" && hash.attribute == nil, "a # not followed by a constant belongs to the name")
        #expect(try SecretReference.parse("kc://genp/a%2Fb/%").description == "kc://genp/a%2Fb/%")
        for bad in [
            "kc:/genp/a/b", "kc://genp/a", "kc://genp/a/b/c", "kc://idnt/a/b", "kc://genp//b", "kc://genp/a/b#kSec-x",
            "kc://genp/a\n/b",
        ] {
            #expect(throws: ReferenceSyntaxError.self, "\(bad.debugDescription)") { try SecretReference.parse(bad) }
        }
    }

    @Test func templates() throws {
        let t = try Template.parse(
            "x={{ kc://genp/s/a }} y={{kc://genp/s/a#kSecAttrAccount}} {{ not }} {{kc://genp/s/a}}")
        #expect(t.references.count == 2)
        #expect(
            String(decoding: t.render { Array(($0.attribute ?? "V").utf8) }, as: UTF8.self)
                == "x=V y=kSecAttrAccount {{ not }} V")
        let error = #expect(throws: ReferenceSyntaxError.self) { try Template.parse("a\nb {{ kc://genp/s/a\n") }
        #expect(error?.line == 2)
    }

    @Test func environmentFiles() throws {
        let spec = try EnvironmentSpec.parseFile("# c\n\nexport A='kc://genp/s/a'\r\nB=plain=x\nC=\"\"\n")
        #expect(spec.variables.map(\.name) == ["A", "B", "C"])
        #expect(spec.variables[1].value == .literal("plain=x") && spec.variables[2].value == .literal(""))
        let bad = #expect(throws: ReferenceSyntaxError.self) { try EnvironmentSpec.parseFile("A=1\n1X=2\n") }
        #expect(bad?.line == 2)
        #expect(throws: ReferenceSyntaxError.self) { try EnvironmentSpec.parseAssignment("A=kc://genp/x") }
    }

    @Test func accessFileRoundTrips() throws {
        let rules = [
            AccessRule(
                name: "deploy \"prod\"", match: .executable("/usr/bin/deploy"), ancestor: true,
                groups: ["deploy", "shared"]),
            AccessRule(
                name: "sha256:" + String(repeating: "ab", count: 32),
                match: .sha256(String(repeating: "ab", count: 32)), groups: ["x"]),
            AccessRule(name: "uid:1000", match: .uid(1000), groups: ["u"]),
            AccessRule(name: "unit:backup.service", match: .unit("backup.service"), groups: ["b\tq"]),
        ]
        #expect(try AccessPolicyFile.parse(AccessPolicyFile.render(rules)) == rules)
        let written = try AccessPolicyFile.parse("[[rule]] # first\nexe = '/bin/x'\ngroups = [ \"g\" , ]\n")
        #expect(written == [AccessRule(name: "exe:/bin/x", match: .executable("/bin/x"), groups: ["g"])])
    }

    @Test func accessFileErrorsNameTheLine() {
        let cases: [(String, Int)] = [
            ("[[rule]]\nexe = \"/x\"\nuid = 3\ngroups = [\"g\"]\n", 1),
            ("[[rule]]\nexe = \"relative\"\ngroups = [\"g\"]\n", 2),
            ("[[rule]]\nuid = 1\nancestor = true\ngroups = [\"g\"]\n", 3),
            ("[[rule]]\nuid = 1\ngroups = []\n", 3),
            ("exe = \"/x\"\n", 1),
            ("[[rule]]\nuid = 1\ngroups = [\"g\"]\nbogus = 1\n", 4),
            ("[[rule]]\nunit = \"a\ngroups = [\"g\"]\n", 2),
            ("[[rule]]\nuid = 99999999999\ngroups = [\"g\"]\n", 2),
        ]
        for (text, line) in cases {
            let error = #expect(throws: AccessPolicyFile.SyntaxError.self, "\(text.debugDescription)") {
                try AccessPolicyFile.parse(text)
            }
            #expect(error?.line == line, "\(text.debugDescription)")
        }
    }

    @Test func theGrantingRuleIsNamedOnTheCaller() throws {
        let directory = "/tmp/kcfs-policy-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let vault = Vault(directory: directory)
        let policy = try AccessPolicy(vault: vault, defaultCaller: Caller(), strict: false)
        #expect(policy.caller(pid: getpid(), uid: getuid()) == Caller())
        try AccessPolicy.write([AccessRule(name: "me", match: .uid(getuid()), groups: ["mine", "shared"])], to: vault)
        let caller = try #require(policy.caller(pid: getpid(), uid: getuid()))
        #expect(caller.accessGroups == ["mine", "shared"] && caller.grantedBy == "me", "re-read at once after a write")
        try AccessPolicy.write([AccessRule(name: "other", match: .uid(getuid() &+ 1), groups: ["x"])], to: vault)
        let strict = try AccessPolicy(vault: vault, defaultCaller: Caller(), strict: true)
        #expect(strict.caller(pid: getpid(), uid: getuid()) == nil)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        try AccessPolicy.write([AccessRule(name: "self", match: .executable(exe), groups: ["e"])], to: vault)
        #expect(policy.caller(pid: getpid(), uid: getuid())?.grantedBy == "self")
    }
}
