import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Testing
@testable import KeychainFSFuse

/// The naming rules on their own (docs/spec.md §4 "Layout"): reversible, canonical, schema-driven.
@Suite struct NamingRulesTests {
    let naming = ItemNaming(schema: Schema.genericPassword, defaultGroup: "default")

    @Test(arguments: [
        ("plain", "plain"), ("a/b", "a%2Fb"), ("50%", "50%25"), ("x;y", "x%3By"), (".", "%2E"), ("..", "%2E%2E"),
        ("", "%"), ("...", "..."), ("nul\u{0}", "nul%00"), ("bell\u{7}", "bell%07"), ("café", "café"),
    ])
    func escaping(_ raw: String, _ escaped: String) {
        #expect(NameEscaping.escape(Array(raw.utf8)) == escaped)
        #expect(NameEscaping.unescape(Array(escaped.utf8)) == Array(raw.utf8))
    }

    @Test func invalidUTF8IsEscapedBytewise() {
        let bytes: [UInt8] = [0x61, 0xFF, 0xC3, 0x28, 0x62]
        let name = NameEscaping.escape(bytes)
        #expect(name == "a%FF%C3(b")
        #expect(NameEscaping.unescape(Array(name.utf8)) == bytes)
    }

    @Test func onlyCanonicalSpellingsAreAccepted() {
        #expect(NameEscaping.unescape(Array("%61".utf8)) == nil)
        #expect(NameEscaping.unescape(Array("%2f".utf8)) == nil, "hex digits are upper case")
        #expect(NameEscaping.unescape(Array("a%".utf8)) == nil)
        #expect(NameEscaping.unescape(Array("a%2".utf8)) == nil)
    }

    @Test func qualifiersAreAlphabeticalAndOmitDefaults() {
        #expect(naming.qualifiers.map(\.code) == ["agrp", "ggrp", "sync", "tkid", "vwht"])
        let name = naming.itemName(["acct": "alice", "agrp": "TEAM.shared", "sync": 1, "vwht": ""])
        #expect(name == "alice;agrp=TEAM.shared;sync=1")
        #expect(naming.itemName(["acct": "alice", "agrp": "default", "sync": 0]) == "alice")
        let parsed = naming.parseItem(Array(name.utf8))
        #expect(
            parsed?["acct"] == "alice" && parsed?["agrp"] == "TEAM.shared" && parsed?["sync"] == 1
                && parsed?["vwht"] == "")
        #expect(naming.parseItem(Array("alice".utf8))?["agrp"] == "default")
        #expect(naming.parseItem(Array("alice;sync=1;agrp=x".utf8)) == nil)
    }

    @Test func longNamesKeepAPrefixAndAHash() {
        let long = String(repeating: "é", count: 200)
        let a = ItemNaming.shortened(long), b = ItemNaming.shortened(long + "x")
        #expect(a.utf8.count == 255 && b.utf8.count == 255 && a != b)
        #expect(ItemNaming.isShortened(Array(a.utf8)))
        #expect(!ItemNaming.isShortened(Array("short".utf8)))
    }
}
