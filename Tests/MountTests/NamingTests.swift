import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Names, qualifiers, renames and inodes (docs/spec.md §4 "Layout").
@Suite struct NamingTests {
    @Test func qualifiersFollowTheAttributes() throws {
        let m = try MountedVault(mountArguments: ["--access-group", "TEAM.app", "--access-group", "TEAM.shared"])
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        #expect(FS.mkdir(m.path("genp/svc/deploy")) == 0)
        #expect(FS.write(m.path("genp/svc/deploy/value"), "v") == 0)
        #expect(
            FS.xattrText(m.path("genp/svc/deploy"), "user.kSecAttrAccessGroup") == "TEAM.app", "the mount's first group"
        )
        let inode = FS.inode(m.path("genp/svc/deploy"))
        #expect(FS.setxattr(m.path("genp/svc/deploy"), "user.kSecAttrSynchronizable", "1") == 0)
        #expect(m.wait(3) { FS.list(m.path("genp/svc")) == .success(["deploy;sync=1"]) })
        #expect(FS.inode(m.path("genp/svc/deploy;sync=1")) == inode, "inodes are stable across updates")
        #expect(FS.text(m.path("genp/svc/deploy;sync=1/value")) == "v")
        #expect(FS.mkdir(m.path("genp/svc/alice;agrp=TEAM.shared")) == 0)
        #expect(FS.xattrText(m.path("genp/svc/alice;agrp=TEAM.shared"), "user.kSecAttrAccessGroup") == "TEAM.shared")
        #expect(FS.mkdir(m.path("genp/svc/alice;agrp=OTHER")) == EACCES, "not one of the mount's groups")
        #expect(FS.mkdir(m.path("genp/svc/deploy")) == 0, "sync=0 and sync=1 items coexist")
        #expect(FS.list(m.path("genp/svc")) == .success(["alice;agrp=TEAM.shared", "deploy", "deploy;sync=1"]))
    }

    @Test func specialCharactersAreEscapedReversibly() throws {
        let m = try MountedVault()
        let names = ["a/b", "100%", "x;y", ".", "..", "", "tab\there", "café ☕"]
        for (i, account) in names.enumerated() {
            _ = try m.control.send(
                ControlRequest(
                    .itemAdd,
                    [
                        "query": .dictionary([
                            "class": "genp", "svce": "weird", "acct": .string(account),
                            "v_Data": .data(Data("secret\(i)".utf8)),
                        ])
                    ])
            ).check()
        }
        let listed = try FS.list(m.path("genp/weird")).get()
        #expect(Set(listed) == ["a%2Fb", "100%25", "x%3By", "%2E", "%2E%2E", "%", "tab%09here", "café ☕"])
        for (i, account) in names.enumerated() {
            let name = listed.first { FS.xattrText(m.path("genp/weird/\($0)"), "user.kSecAttrAccount") == account }
            #expect(name != nil, "\(account) is listed")
            if let name { #expect(FS.text(m.path("genp/weird/\(name)/value")) == "secret\(i)") }
        }
        #expect(FS.mkdir(m.path("genp/weird/new%2Fone")) == 0)
        #expect(FS.xattrText(m.path("genp/weird/new%2Fone"), "user.kSecAttrAccount") == "new/one")
    }

    @Test func longNamesAreShortenedAndStillFound() throws {
        let m = try MountedVault()
        let account = String(repeating: "long-account-", count: 25)
        _ = try m.control.send(
            ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "genp", "svce": "svc", "acct": .string(account), "v_Data": .data(Data("deep".utf8)),
                    ])
                ])
        ).check()
        let listed = try FS.list(m.path("genp/svc")).get()
        #expect(listed.count == 1 && listed[0].utf8.count == 255)
        #expect(FS.text(m.path("genp/svc/\(listed[0])/value")) == "deep")
        #expect(
            FS.xattrText(m.path("genp/svc/\(listed[0])"), "user.kSecAttrAccount") == account,
            "the full value is in the xattr")
    }

    @Test func renamingItemsAndServices() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        #expect(FS.mkdir(m.path("genp/svc/alice")) == 0)
        #expect(FS.write(m.path("genp/svc/alice/value"), "A") == 0)
        let inode = FS.inode(m.path("genp/svc/alice"))
        let ref = FS.getxattr(m.path("genp/svc/alice"), "user.kSecValuePersistentRef")
        #expect(FS.rename(m.path("genp/svc/alice"), m.path("genp/svc/carol")) == 0)
        #expect(FS.text(m.path("genp/svc/carol/value")) == "A")
        #expect(FS.inode(m.path("genp/svc/carol")) == inode)
        #expect(FS.getxattr(m.path("genp/svc/carol"), "user.kSecValuePersistentRef") == ref)
        #expect(FS.mkdir(m.path("genp/other")) == 0)
        #expect(FS.rename(m.path("genp/svc/carol"), m.path("genp/other/carol;sync=1")) == 0)
        #expect(FS.xattrText(m.path("genp/other/carol;sync=1"), "user.kSecAttrService") == "other")
        #expect(FS.rename(m.path("genp/other"), m.path("genp/renamed")) == 0)
        #expect(FS.text(m.path("genp/renamed/carol;sync=1/value")) == "A")
        #expect(FS.rename(m.path("genp/renamed/carol;sync=1"), m.path("/") + "carol") != 0)
    }

    @Test func removingItems() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for account in ["a", "b"] { #expect(FS.mkdir(m.path("genp/svc/\(account)")) == 0) }
        #expect(FS.rmdir(m.path("genp/svc/a")) == 0)
        #expect(FS.list(m.path("genp/svc")) == .success(["b"]))
        let rm = Command.run("/bin/rm", ["-r", m.path("genp/svc")])
        #expect(rm.succeeded, "rm -r: \(rm.stderr)")
        #expect(FS.list(m.path("genp")) == .success([]))
        #expect(
            try m.control.send(ControlRequest(.status)).check()?.dictionaryValue?["items"]?.dictionaryValue?["genp"]
                == .number(0))
    }

    @Test func attributesAsXattrs() throws {
        let m = try MountedVault()
        let item = m.makeItem(service: "svc", account: "alice")
        #expect(FS.setxattr(item, "user.kSecAttrLabel", "My label") == 0)
        #expect(FS.setxattr(item, "user.kSecAttrIsInvisible", "1") == 0)
        #expect(FS.setxattr(item, "user.kSecAttrGeneric", "\u{1}\u{2}") == 0)
        #expect(FS.xattrText(item, "user.kSecAttrLabel") == "My label")
        #expect(FS.xattrText(item, "user.kSecAttrIsInvisible") == "1")
        #expect(FS.xattrText(item, "user.kSecAttrAccessible") == "kSecAttrAccessibleWhenUnlocked")
        let date = FS.xattrText(item, "user.kSecAttrCreationDate") ?? ""
        #expect(
            date.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil,
            "ISO 8601 with ms: \(date)")
        #expect(FS.getxattr(item, "user.kSecValuePersistentRef").errno == ENODATA, "in the making: not stored yet")
        let names = FS.listxattr(item)
        #expect(
            names.contains("user.kSecAttrLabel") && names.contains("user.kSecAttrAccount")
                && !names.contains("user.kSecAttrComment"))
        #expect(FS.removexattr(item, "user.kSecAttrLabel") == 0)
        #expect(FS.getxattr(item, "user.kSecAttrLabel").errno == ENODATA)
        #expect(FS.setxattr(item, "user.kSecAttrAccessible", "ck") == 0)
        #expect(FS.removexattr(item, "user.kSecAttrAccessible") == 0, "a removed default goes back to the default")
        #expect(FS.xattrText(item, "user.kSecAttrAccessible") == "kSecAttrAccessibleWhenUnlocked")
        #expect(FS.mode(item).map { $0 & 0o777 } == 0o700)
        #expect(FS.mode(item + "/value").map { $0 & 0o777 } == 0o600)
        #expect(FS.write(item + "/value", "v") == 0)
        #expect(FS.getxattr(item, "user.kSecValuePersistentRef").map(\.count) == .success(20), "stored at its close")
        #expect(FS.xattrText(item, "user.kSecAttrGeneric") == "\u{1}\u{2}", "the xattrs set meanwhile are stored")
    }
}
