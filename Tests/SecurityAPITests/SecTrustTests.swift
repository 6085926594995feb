import Foundation
import KeychainFSTestSupport
import Security
import Testing

/// Certificate chains made by the openssl CLI in a temporary directory: a root, an intermediate it signed
/// and leaves the intermediate signed (good, expired, not yet valid), and a second root with its own
/// intermediate and leaf, which nothing trusts.
private final class TrustChains: Sendable {
    let directory: String
    static let host = "leaf.example"

    init() throws {
        directory = TestDirectory.root + "/kc-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Self.config.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        for root in ["root", "other-root"] {
            try openssl(
                ["req", "-x509", "-config", "ca.cnf", "-extensions", "ca"] + newKey(root)
                    + ["-out", "\(root).pem", "-subj", "/CN=keychainfs \(root)", "-days", "30"])
        }
        try issue("inter", by: "root", extensions: "ca")
        try issue("other-inter", by: "other-root", extensions: "ca")
        try issue("leaf", by: "inter", extensions: "leaf", commonName: Self.host)
        try issue("other-leaf", by: "other-inter", extensions: "leaf", commonName: Self.host)
        try issue(
            "expired", by: "inter", extensions: "leaf", commonName: Self.host,
            dates: ["-startdate", "20250101000000Z", "-enddate", "20250201000000Z"])
        try issue(
            "future", by: "inter", extensions: "leaf", commonName: Self.host,
            dates: ["-startdate", "20400101000000Z", "-enddate", "20400201000000Z"])
        let others = try ["other-inter", "other-root"].map { try String(contentsOfFile: path($0), encoding: .utf8) }
        try others.joined().write(toFile: path("other-chain"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static let config = """
        [req]
        distinguished_name = dn
        [dn]
        [ca]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [leaf]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:\(host)
        [signer]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = anything
        unique_subject = no
        [anything]
        commonName = supplied
        """

    func path(_ name: String) -> String { directory + "/\(name).pem" }

    private func newKey(_ name: String) -> [String] {
        ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key"]
    }

    /// `name`.pem signed by `issuer` with the extensions of that section of ca.cnf (`openssl ca`, which,
    /// unlike `x509 -req` in OpenSSL 3.0, takes any start and end date).
    private func issue(
        _ name: String, by issuer: String, extensions: String, commonName: String? = nil,
        dates: [String] = ["-days", "30"]
    ) throws {
        try openssl(
            ["req", "-new", "-config", "ca.cnf"] + newKey(name)
                + ["-out", "\(name).csr", "-subj", "/CN=\(commonName ?? "keychainfs \(name)")"])
        try openssl(
            [
                "ca", "-batch", "-config", "ca.cnf", "-name", "signer", "-cert", "\(issuer).pem", "-keyfile",
                "\(issuer).key", "-in", "\(name).csr", "-out", "\(name).pem", "-extfile", "ca.cnf", "-extensions",
                extensions, "-notext",
            ] + dates)
    }

    @discardableResult
    func openssl(_ arguments: [String]) throws -> CommandResult {
        let result = Command.run("/bin/sh", ["-c", "cd \"$0\" && exec /usr/bin/openssl \"$@\"", directory] + arguments)
        guard result.succeeded else {
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments): \(result.stderr)"])
        }
        return result
    }

    /// What `openssl verify` says of `leaf` with `root` as the only trusted certificate.
    func opensslVerifies(
        _ leaf: String, root: String = "root", untrusted: String? = "inter", hostname: String? = nil,
        at date: Date? = nil
    ) -> Bool {
        var arguments = ["verify", "-CAfile", path(root)]
        if let untrusted { arguments += ["-untrusted", path(untrusted)] }
        if let hostname { arguments += ["-verify_hostname", hostname] }
        if let date { arguments += ["-attime", String(Int(date.timeIntervalSince1970))] }
        return Command.run("/usr/bin/openssl", arguments + [path(leaf)]).succeeded
    }

    /// The certificate of `name`.pem.
    func certificate(_ name: String) throws -> SecCertificate {
        try #require(SecCertificateCreateWithData(nil, try der(name) as CFData))
    }

    func der(_ name: String) throws -> Data {
        // The DER is binary: read it from a file rather than through the text of standard output.
        let file = directory + "/\(name).der"
        try openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
        return try Data(contentsOf: URL(fileURLWithPath: file))
    }

    /// A trust object for `names` (leaf first) under `policy`, anchored at `anchors` when given.
    func trust(_ names: [String], policy: SecPolicy = SecPolicyCreateBasicX509(), anchors: [String]? = ["root"])
        throws -> SecTrust
    {
        var trust: SecTrust?
        let certificates = try names.map { try certificate($0) }
        #expect(SecTrustCreateWithCertificates(certificates as CFArray, policy, &trust) == errSecSuccess)
        let made = try #require(trust)
        if let anchors {
            #expect(
                SecTrustSetAnchorCertificates(made, try anchors.map { try certificate($0) } as CFArray) == errSecSuccess
            )
        }
        return made
    }
}

/// The outcome of an evaluation: trusted, else the error's code and description.
private func evaluate(_ trust: SecTrust) -> (trusted: Bool, code: Int?, description: String?) {
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(trust, &error)
    return (trusted, error.map { CFErrorGetCode($0) }, error.map { CFErrorCopyDescription($0) as String })
}

@Suite struct SecTrustTests {
    /// One chain per way to fail, each judged by openssl and by SecTrust, and the code Apple's trustd
    /// gives it (SecPolicyChecks.list: TemporalValidity is errSecCertificateExpired whichever end of the
    /// validity is crossed; AnchorTrusted errSecNotTrusted; MissingIntermediate errSecCreateChainFailed).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var certificates: [String]
        var untrusted: String?
        var hostname: String?
        var code: OSStatus?
        /// The certificate the error names.
        var named: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "good", certificates: ["leaf", "inter"], untrusted: "inter", hostname: TrustChains.host),
        Case(
            name: "expired leaf", certificates: ["expired", "inter"], untrusted: "inter",
            code: errSecCertificateExpired, named: TrustChains.host),
        Case(
            name: "leaf not yet valid", certificates: ["future", "inter"], untrusted: "inter",
            code: errSecCertificateExpired, named: TrustChains.host),
        Case(
            name: "wrong host", certificates: ["leaf", "inter"], untrusted: "inter", hostname: "other.example",
            code: errSecHostNameMismatch, named: TrustChains.host),
        Case(
            name: "untrusted root", certificates: ["other-leaf", "other-inter", "other-root"],
            untrusted: "other-chain", code: errSecNotTrusted, named: "keychainfs other-root"),
        Case(
            name: "missing intermediate", certificates: ["leaf"], untrusted: nil, code: errSecCreateChainFailed,
            named: TrustChains.host),
    ]

    @Test(arguments: cases)
    func agreesWithOpenSSLAndGivesApplesCode(_ check: Case) throws {
        let chains = try TrustChains()
        let policy = check.hostname.map { SecPolicyCreateSSL(true, $0 as CFString) } ?? SecPolicyCreateBasicX509()
        let outcome = evaluate(try chains.trust(check.certificates, policy: policy))
        let openssl = chains.opensslVerifies(
            check.certificates[0], untrusted: check.untrusted, hostname: check.hostname)
        #expect(outcome.trusted == openssl, "SecTrust and openssl verify disagree")
        #expect(outcome.trusted == (check.code == nil))
        #expect(outcome.code == check.code.map(Int.init))
        if let named = check.named {
            #expect(outcome.description?.hasPrefix("“\(named)” certificate ") == true, "\(outcome.description ?? "")")
        }
    }

    @Test func theErrorIsApplesOSStatusErrorWithItsWording() throws {
        let chains = try TrustChains()
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(try chains.trust(["expired", "inter"]), &error))
        let failure = try #require(error)
        #expect(CFErrorGetDomain(failure) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorCopyDescription(failure) as String == "“\(TrustChains.host)” certificate is expired")
        // A trusted chain leaves no error behind.
        #expect(SecTrustEvaluateWithError(try chains.trust(["leaf", "inter"]), &error))
        #expect(error == nil)
        #expect(SecTrustEvaluateWithError(try chains.trust(["leaf", "inter"]), nil))
    }

    @Test func theVerifyDateDecidesValidityAsOpenSSLsAttimeDoes() throws {
        let chains = try TrustChains()
        let trust = try chains.trust(["leaf", "inter"])
        let day: TimeInterval = 86400
        for (offset, valid) in [(10 * day, true), (60 * day, false), (-10 * day, false), (0, true)] {
            let date = Date(timeIntervalSinceNow: offset)
            #expect(SecTrustSetVerifyDate(trust, date as CFDate) == errSecSuccess)
            let outcome = evaluate(trust)
            #expect(outcome.trusted == valid, "\(offset / day) days")
            #expect(chains.opensslVerifies("leaf", at: date) == valid, "\(offset / day) days")
            #expect(outcome.code == (valid ? nil : Int(errSecCertificateExpired)))
        }
        // The expired leaf was valid in January 2025.
        let expired = try chains.trust(["expired", "inter"])
        let january = Date(timeIntervalSince1970: 1_736_208_000)  // 2025-01-07
        #expect(!evaluate(expired).trusted)
        #expect(SecTrustSetVerifyDate(expired, january as CFDate) == errSecSuccess)
        // The root and intermediate were made today, so at that date they were not valid yet.
        #expect(evaluate(expired).code == Int(errSecCertificateExpired))
        #expect(!chains.opensslVerifies("expired", at: january))
    }

    @Test func theChainRunsFromTheLeafToTheAnchor() throws {
        let chains = try TrustChains()
        let trust = try chains.trust(["leaf", "inter"])
        // Not evaluated yet: copying the chain evaluates first.
        let chain = try #require(SecTrustCopyCertificateChain(trust) as? [SecCertificate])
        #expect(try chain.map { SecCertificateCopyData($0) as Data } == ["leaf", "inter", "root"].map(chains.der))
        #expect(evaluate(trust).trusted)
        // Without the intermediate the chain is the leaf alone.
        let alone = try #require(SecTrustCopyCertificateChain(try chains.trust(["leaf"])) as? [SecCertificate])
        let leaf = try chains.der("leaf")
        #expect(alone.map { SecCertificateCopyData($0) as Data } == [leaf])
    }

    @Test func anchorsAreTheOnlyRootsUntilTheSystemsAreAddedBack() throws {
        let chains = try TrustChains()
        // No anchors: only the system's roots, which do not hold ours.
        let unanchored = try chains.trust(["leaf", "inter"], anchors: nil)
        #expect(evaluate(unanchored).code == Int(errSecCreateChainFailed))
        #expect(SecTrustSetAnchorCertificatesOnly(unanchored, false) == errSecSuccess)
        #expect(!evaluate(unanchored).trusted, "turning anchors-only off adds no root of ours")
        let anchored = try chains.trust(["leaf", "inter"])
        #expect(evaluate(anchored).trusted)
        #expect(SecTrustSetAnchorCertificatesOnly(anchored, false) == errSecSuccess)
        #expect(evaluate(anchored).trusted, "the anchor stays beside the system's roots")

        // A root of the system's bundle that openssl trusts through the bundle is trusted by default, not
        // once our root is the only anchor, and again when the system's roots are added back.
        let systemRoot = try #require(try Self.systemRoot(in: chains), "no valid root in the system bundle")
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(systemRoot, nil, &trust) == errSecSuccess)
        let system = try #require(trust)
        #expect(evaluate(system).trusted)
        #expect(SecTrustSetAnchorCertificates(system, [try chains.certificate("root")] as CFArray) == errSecSuccess)
        #expect(evaluate(system).code == Int(errSecNotTrusted))
        #expect(SecTrustSetAnchorCertificatesOnly(system, false) == errSecSuccess)
        #expect(evaluate(system).trusted)
        #expect(SecTrustSetAnchorCertificates(system, [] as CFArray) == errSecSuccess)
        #expect(!evaluate(system).trusted, "an empty anchor list trusts nothing")
    }

    /// The first certificate of /etc/ssl/certs/ca-certificates.crt that `openssl verify` accepts against
    /// that bundle.
    private static func systemRoot(in chains: TrustChains) throws -> SecCertificate? {
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        let text = try String(contentsOfFile: bundle, encoding: .utf8)
        for (index, block) in text.components(separatedBy: "-----END CERTIFICATE-----").prefix(20).enumerated() {
            guard let begin = block.range(of: "-----BEGIN CERTIFICATE-----") else { continue }
            let name = "system-\(index)"
            try (String(block[begin.lowerBound...]) + "-----END CERTIFICATE-----\n").write(
                toFile: chains.path(name), atomically: true, encoding: .utf8)
            if Command.run("/usr/bin/openssl", ["verify", "-CAfile", bundle, chains.path(name)]).succeeded {
                return try chains.certificate(name)
            }
        }
        return nil
    }

    @Test func badArgumentsAreErrSecParam() throws {
        let chains = try TrustChains()
        let leaf = try chains.certificate("leaf")
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates([] as CFArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates("a certificate" as CFString, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates([leaf, "not one"] as CFArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(leaf, "a policy" as CFString, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(leaf, [] as CFArray, &trust) == errSecParam)
        #expect(trust == nil)
        #expect(SecTrustCreateWithCertificates(leaf, [SecPolicyCreateBasicX509()] as CFArray, &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(made, ["not a certificate"] as CFArray) == errSecParam)
        #expect(CFGetTypeID(made) == SecTrustGetTypeID())
        #expect(CFGetTypeID(SecPolicyCreateBasicX509()) == SecPolicyGetTypeID())
        #expect(SecTrustGetTypeID() != SecPolicyGetTypeID() && SecTrustGetTypeID() != SecCertificateGetTypeID())
        #expect(SecPolicyCreateSSL(true, "a" as CFString) == SecPolicyCreateSSL(true, "a" as CFString))
        #expect(SecPolicyCreateSSL(true, "a" as CFString) != SecPolicyCreateSSL(true, "b" as CFString))
    }

    /// More evaluations at once than the cooperative pool has threads, each blocking its thread until its
    /// result is there: they finish because the validation runs on a thread of its own.
    @Test func evaluationsFromManyTasksAtOnceFinish() async throws {
        let chains = try TrustChains()
        let trusts = try (0..<16).map { _ in try chains.trust(["leaf", "inter"]) }
        let results = await withTaskGroup(of: Bool.self) { group in
            for trust in trusts { group.addTask { SecTrustEvaluateWithError(trust, nil) } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 16))
    }
}
