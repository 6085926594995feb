import Foundation
import Testing
import KeychainFSTestSupport

/// `security import` of PEM files made by `openssl req` (docs/spec.md §13): a bad file adds nothing, a second
/// import is a duplicate (45), a certificate and its key make an identity under idnt/.
@Suite struct ImportVerbTests {
    private static func openssl(_ arguments: [String]) throws -> String {
        let result = Command.run("/usr/bin/openssl", arguments, stdin: nil, environment: [:])
        try #require(result.succeeded, "openssl \(arguments)")
        return result.stdout
    }

    @Test func importCertificateAndKeyMakesAnIdentity() throws {
        let m = try MountedVault()
        let environment = ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": ""]
        func security(_ arguments: [String]) -> CommandResult {
            Command.run(MountedVault.binary, arguments, stdin: nil, environment: environment)
        }
        let directory = m.root + "/import"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = directory + "/key.pem", cert = directory + "/cert.pem", junk = directory + "/junk"
        _ = try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            cert,
            "-subj", "/CN=Alice Example/O=keychainfs tests", "-days", "2",
        ])
        try "not a certificate".write(toFile: junk, atomically: true, encoding: .utf8)
        let bad = security(["import", junk])
        #expect(bad.status != 0 && bad.stderr.contains("SecKeychainItemImport"))
        #expect(FS.list(m.path("cert")) == .success([]), "nothing added by a bad file")

        let imported = security(["import", cert])
        #expect(imported.succeeded && imported.stdout == "1 certificate imported.\n")
        #expect(security(["import", cert]).status == 45, "errSecDuplicateItem")
        #expect(security(["import", key, "-k", m.vault]).stdout == "1 key imported.\n")
        #expect(
            m.wait(3) { (try? FS.list(m.path("idnt/Alice Example")).get().count) == 1 },
            "the identity appears under idnt/")
        #expect(
            security(["find-certificate", "-p"]).stdout == (try Self.openssl(["x509", "-in", cert])),
            "PEM as openssl prints it")
        #expect(
            security(["find-identity", "-v"]).stdout.hasSuffix("\"Alice Example\"\n     1 valid identities found\n"))
    }
}
