import KeychainFSCSystem
import Foundation
import Testing
import KeychainFSTestSupport

/// Items made by each helper are the items macOS's helpers make: they appear in the mount as
/// inet/<host>/<account>;… and through `security find-internet-password` (docs/credential-helpers.md).
@Suite struct ItemsInTheMountTests {
    func xattr(_ path: String, _ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = KeychainFSCSystem.getxattr(path, name, &buffer, buffer.count)
        return length < 0 ? nil : String(decoding: buffer[0..<length], as: UTF8.self)
    }

    @Test func gitAndDockerItemsInTheMountAndThroughFindInternetPassword() throws {
        let m = try MountedVault()
        defer { m.close() }
        let s = try HelperSandbox(vault: m.vault)

        try s.tell("approve", "https://alice@git.example.com:8443", password: "git-pw")
        let gitItem = m.path("inet/git.example.com/alice;atyp=dflt;port=8443;ptcl=htps")
        #expect(try String(contentsOfFile: gitItem + "/value", encoding: .utf8) == "git-pw")
        #expect(xattr(gitItem, "user.kSecAttrProtocol") == "kSecAttrProtocolHTTPS")
        #expect(xattr(gitItem, "user.kSecAttrAuthenticationType") == "kSecAttrAuthenticationTypeDefault")
        #expect(xattr(gitItem, "user.kSecAttrAccessible") == "kSecAttrAccessibleWhenUnlocked")
        #expect(xattr(gitItem, "user.kSecAttrLabel") == nil, "git's helper sets no label")
        let gitFound = s.keychainfs([
            "find-internet-password", "-s", "git.example.com", "-a", "alice", "-r", "htps", "-t", "dflt", "-P", "8443",
        ])
        #expect(
            gitFound.succeeded && gitFound.stdout.contains(#""ptcl"<uint32>="htps""#)
                && gitFound.stdout.contains(#""atyp"<blob>="dflt""#))
        #expect(
            gitFound.stdout.contains(#""port"<uint32>=0x000020FB"#)
                && gitFound.stdout.contains(#""srvr"<blob>="git.example.com""#))

        let docker = s.helper(
            "docker-credential-keychainfs", ["store"],
            stdin: #"{"ServerURL":"http://registry.example.com:5000/v2/","Username":"bob","Secret":"docker-pw"}"#)
        #expect(docker.succeeded)
        let dockerItem = m.path("inet/registry.example.com/bob;atyp=dflt;path=%2Fv2%2F;port=5000;ptcl=http")
        #expect(try String(contentsOfFile: dockerItem + "/value", encoding: .utf8) == "docker-pw")
        #expect(xattr(dockerItem, "user.kSecAttrLabel") == "Docker Credentials")
        #expect(xattr(dockerItem, "user.kSecAttrPath") == "/v2/")
        let dockerFound = s.keychainfs([
            "find-internet-password", "-s", "registry.example.com", "-l", "Docker Credentials", "-g",
        ])
        #expect(
            dockerFound.stdout.contains(#"0x00000007 <blob>="Docker Credentials""#)
                && dockerFound.stdout.contains(#""acct"<blob>="bob""#))
        #expect(
            dockerFound.stdout.contains(#""ptcl"<uint32>="http""#)
                && dockerFound.stdout.contains(#""path"<blob>="/v2/""#))
        #expect(dockerFound.stderr.contains(#"password: "docker-pw""#))

        // An item written through the mount is one the helpers find.
        let made = m.path("inet/files.example.com/carol;atyp=dflt;ptcl=htps")
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        try Data("fs-pw".utf8).write(to: URL(fileURLWithPath: made + "/value"))
        #expect(s.fill("https://files.example.com")?["password"] == "fs-pw")
        #expect(
            s.helper("docker-credential-keychainfs", ["list"], stdin: "").stdout
                == #"{"http://registry.example.com:5000/v2/":"bob"}"# + "\n",
            "list shows Docker's items only")
    }
}
