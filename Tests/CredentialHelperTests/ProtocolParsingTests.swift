import KeychainFSCredentialHelpers
import Foundation
import Testing

/// The parts of the two protocols that are pure functions: server URLs split as Docker's helpers split
/// them, JSON as Go writes it, git's input as osxkeychain reads it.
@Suite struct ProtocolParsingTests {
    @Test func registryURLsSplitAsDockerSplitsThem() throws {
        #expect(
            try RegistryURL.parse("https://index.docker.io/v1/")
                == RegistryURL(scheme: "https", host: "index.docker.io", port: nil, path: "/v1/"))
        #expect(
            try RegistryURL.parse("registry.example.com:5000")
                == RegistryURL(scheme: nil, host: "registry.example.com", port: 5000, path: ""))
        #expect(
            try RegistryURL.parse("HTTP://user:pw@[::1]:8080/a%20b?x=1#f")
                == RegistryURL(scheme: "http", host: "::1", port: 8080, path: "/a b"))
        #expect(
            try RegistryURL.parse("//ghcr.io/org") == RegistryURL(scheme: nil, host: "ghcr.io", port: nil, path: "/org")
        )
        for (bad, message) in [
            ("ftp://x", "unsupported scheme: ftp"), ("https://", "no hostname in URL"),
            ("exa mple.com", "invalid character \" \" in host name"),
            ("host:port", "invalid port \":port\" after host"),
            ("host:99999", "invalid port 99999"), ("host/%zz", "invalid URL escape"),
        ] {
            #expect(throws: RegistryURLError.self) { try RegistryURL.parse(bad) }
            do { _ = try RegistryURL.parse(bad) } catch { #expect("\(error)".contains(message), "\(bad): \(error)") }
        }
        #expect(
            RegistryURL.listed(https: true, host: "index.docker.io", port: 0, path: "/v1/")
                == "https://index.docker.io/v1/")
        #expect(RegistryURL.listed(https: false, host: "::1", port: 5000, path: "a b") == "http://[::1]:5000/a%20b")
    }

    @Test func jsonAsGoWritesIt() throws {
        let written = GoJSON.object([
            ("Username", Data("<token>".utf8)),
            ("Secret", Data([0x61, 0xFF, 0x22, 0x0A, 0x01]) + Data("\u{2028}&é".utf8)),
        ])
        #expect(
            String(decoding: written, as: UTF8.self)
                == #"{"Username":"\u003ctoken\u003e","Secret":"a\ufffd\"\n\u0001\u2028\u0026é"}"# + "\n")
        #expect(
            String(decoding: GoJSON.map(["b": "2", "B": "1", "a": "0"]), as: UTF8.self) == #"{"B":"1","a":"0","b":"2"}"#
                + "\n")
        let fields = try GoJSON.decodeStrings(
            Data(#"{"SERVERURL":"x","Username":null,"Extra":1}"#.utf8), fields: ["ServerURL", "Username"], type: "c.C")
        #expect(fields == ["ServerURL": "x"])
    }

    @Test func gitInputAsOsxkeychainReadsIt() throws {
        let c = try GitCredential.parse(
            Data(
                "protocol=https\nhost=[::1]:8443\npath=a.git\nusername=\npassword=p=w\ncapability[]=authtype\n\nhost=ignored\n"
                    .utf8))
        #expect(
            c.host == "::1" && c.port == 8443 && c.path == "a.git" && c.username == "" && c.password == Data("p=w".utf8)
        )
        #expect(c.query.dictionary["ptcl"] == .string("htps") && c.query.dictionary["atyp"] == .string("dflt"))
        #expect(try GitCredential.parse(Data("protocol=ssh\nhost=x\n".utf8)).unsupportedProtocol)
        var full = GitCredential()
        full.password = Data("pw".utf8)
        full.oauthRefreshToken = Data("rt".utf8)
        #expect(full.secret == Data("pw\noauth_refresh_token=rt".utf8))
        #expect(GitCredential.password(inSecret: full.secret!) == Data("pw".utf8))
        #expect(throws: GitCredentialError.self) { try GitCredential.parse(Data("host=h:70000\n".utf8)) }
    }
}
