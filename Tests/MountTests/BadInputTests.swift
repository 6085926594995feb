import Foundation
import Testing
import KeychainFSTestSupport

/// Bad input gets the errno of the SPEC's table and changes nothing (docs/spec.md §4).
@Suite struct BadInputTests {
    let m: MountedVault
    let item: String
    init() throws {
        m = try MountedVault()
        item = m.makeItem(service: "svc", account: "alice")
        #expect(FS.write(item + "/value", "original") == 0)
        #expect(FS.setxattr(item, "user.kSecAttrLabel", "label") == 0)
    }

    /// Everything the fixture stored, to compare before and after.
    func snapshot() -> [String] {
        let items = (try? FS.list(m.path("genp/svc")).get()) ?? []
        return items + [FS.text(item + "/value") ?? "?"]
            + FS.listxattr(item).map { "\($0)=\(FS.xattrText(item, $0) ?? "")" }
    }

    @Test func xattrsOutsideTheSchema() throws {
        let before = snapshot()
        #expect(
            FS.setxattr(item, "user.kSecAttrApplicationTag", "x") == ENOTSUP, "not a genp attribute: errSecNoSuchAttr")
        #expect(FS.setxattr(item, "user.whatever", "x") == ENOTSUP)
        #expect(FS.setxattr(item, "trusted.kSecAttrLabel", "x") != 0)
        #expect(FS.getxattr(item, "user.kSecAttrComment").errno == ENODATA, "an attribute the item lacks")
        #expect(FS.setxattr(item, "user.kSecAttrCreationDate", "2020-01-01T00:00:00.000Z") == EPERM, "read-only")
        #expect(FS.setxattr(item, "user.kSecValuePersistentRef", "x") == EPERM)
        #expect(FS.setxattr(item, "user.kSecAttrAccessible", "sometimes") == EINVAL)
        #expect(FS.setxattr(item, "user.kSecAttrSynchronizable", "maybe") == EINVAL)
        #expect(FS.setxattr(item, "user.kSecAttrAccessGroup", "not-mine") == EACCES, "errSecMissingEntitlement")
        #expect(
            FS.setxattr(item + "/value", "user.kSecAttrLabel", "x") == ENOTSUP, "attributes live on the item directory")
        #expect(snapshot() == before)
    }

    @Test func filesAndDirectoriesInTheWrongPlace() throws {
        let before = snapshot()
        #expect(FS.create(m.path("genp/svc/file")) == EINVAL, "a file at service depth")
        #expect(FS.create(m.path("genp/file")) == EINVAL, "a write at class depth")
        #expect(FS.create(item + "/other") == EINVAL)
        #expect(FS.mkdir(item + "/sub") == EINVAL)
        #expect(FS.mkdir(m.path("nope")) == EPERM, "an unknown class directory")
        #expect(FS.list(m.path("nope")).errno == ENOENT)
        #expect(FS.unlink(item + "/value") == EPERM, "unlink value alone")
        #expect(FS.rmdir(m.path("genp")) == EPERM)
        #expect(FS.rmdir(m.path("genp/svc")) == ENOTEMPTY)
        #expect(FS.rename(item + "/value", item + "/value2") == EPERM)
        #expect(Glibc.chmod(item + "/value", 0o644) != 0)
        #expect(snapshot() == before)
    }

    @Test func namesThatAreNotCanonical() throws {
        let before = snapshot()
        #expect(FS.mkdir(m.path("genp/svc/a%b")) == EINVAL, "a bare % must be written %25")
        #expect(FS.mkdir(m.path("genp/svc/%61")) == EINVAL, "'a' spelled %61 is not canonical")
        #expect(FS.mkdir(m.path("genp/svc/bob;zzzz=1")) == EINVAL, "unknown qualifier")
        #expect(FS.mkdir(m.path("genp/svc/bob;sync=0")) == EINVAL, "default qualifiers never appear")
        #expect(FS.mkdir(m.path("genp/svc/bob;sync=2")) == EINVAL)
        #expect(FS.mkdir(m.path("genp/svc/bob;sync=1;agrp=x")) == EINVAL, "qualifiers in alphabetical order")
        let invalidUTF8 = m.path("genp/svc/") + String(decoding: [0x62], as: UTF8.self)
        let raw = Array(invalidUTF8.utf8) + [0xFF, 0xFE, 0]
        #expect(
            raw.withUnsafeBufferPointer {
                Glibc.mkdir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), 0o700)
            } != 0)
        #expect(errno == EINVAL, "invalid UTF-8 must be written as %XX")
        let long = String(repeating: "x", count: 300)
        #expect(FS.mkdir(m.path("genp/svc/\(long)")) == ENAMETOOLONG)
        #expect(snapshot() == before)
    }

    @Test func collidingRenameIsEEXISTAndChangesNothing() throws {
        #expect(FS.mkdir(m.path("genp/svc/bob")) == 0)
        #expect(FS.write(m.path("genp/svc/bob/value"), "bob's") == 0)
        let before = snapshot()
        #expect(FS.rename(item, m.path("genp/svc/bob")) == EEXIST)
        #expect(FS.mkdir(m.path("genp/svc/bob")) == EEXIST)
        #expect(snapshot() == before)
        #expect(FS.text(m.path("genp/svc/bob/value")) == "bob's")
    }
}

/// Values the filesystem cannot hold exactly are EINVAL, not stored wrapped or clamped.
@Suite struct NumberAndEnumerationInputTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    @Test func keyClassesAreOnlyPublicPrivateOrSymmetric() throws {
        #expect(FS.mkdir(m.path("keys/tag")) == 0)
        for bogus in ["bogus", "3", "1", "Private", "-1"] {
            #expect(FS.mkdir(m.path("keys/tag/\(bogus)")) == EINVAL, "\(bogus)")
        }
        #expect(FS.mkdir(m.path("keys/tag/private")) == 0)
        #expect(FS.list(m.path("keys/tag")) == .success(["private"]), "nothing else was stored")
        #expect(FS.mkdir(m.path("keys/tag/public;crtr=-1")) == EINVAL, "a creator is a FourCharCode")
        #expect(FS.mkdir(m.path("keys/tag/public;crtr=4294967296")) == EINVAL)
        #expect(FS.mkdir(m.path("keys/tag/public;crtr=4294967295")) == 0)
    }

    @Test func booleansAreZeroOrOneAndCodesFitTheirWidth() throws {
        let item = m.makeItem(service: "svc", account: "alice")
        #expect(FS.setxattr(item, "user.kSecAttrIsInvisible", "2") == EINVAL)
        #expect(FS.setxattr(item, "user.kSecAttrIsInvisible", "-1") == EINVAL)
        #expect(FS.getxattr(item, "user.kSecAttrIsInvisible").errno == ENODATA, "nothing stored")
        #expect(FS.setxattr(item, "user.kSecAttrIsInvisible", "1") == 0)
        #expect(FS.xattrText(item, "user.kSecAttrIsInvisible") == "1")
        #expect(FS.setxattr(item, "user.kSecAttrCreator", "-1") == EINVAL)
        #expect(FS.setxattr(item, "user.kSecAttrCreator", "4294967296") == EINVAL)
        #expect(FS.getxattr(item, "user.kSecAttrCreator").errno == ENODATA)
        #expect(FS.setxattr(item, "user.kSecAttrCreator", "1095782487") == 0, "'AQLW' as a number")
        #expect(FS.mkdir(m.path("inet/example.com")) == 0)
        #expect(FS.mkdir(m.path("inet/example.com/alice;port=70000")) == EINVAL)
        #expect(FS.mkdir(m.path("inet/example.com/alice;port=8443")) == 0)
    }
}
