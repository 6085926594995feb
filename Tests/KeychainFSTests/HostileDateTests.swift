import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Testing
@testable import KeychainFSFuse

/// Dates that reach ICU's parser (xattr values, date qualifiers in names): a malformed one is refused, never a
/// crash. The xattr fuzz target found `2026-1-2T1:42:30.-5757…Z`, on which ICU traps (SIGFPE) and the daemon died
/// (`setfattr -n user.kSecAttrStartDate` on a key); its input is also in fuzz/corpus/xattr.
@Suite struct HostileDateTests {
    static let icuTrap = "2026-1-2T1:42:30.-" + String(repeating: "57", count: 20) + "Z"

    @Test(arguments: [
        icuTrap, "2026-11-22T11:42:30.-5Z", "2026-11-22T11:42:30.Z", "+2026-11-22T11:42:30.895Z",
        "2026-11-22T11:42:30.895",
    ])
    func malformedDatesAreRefused(_ text: String) {
        #expect(XattrFormat.parseDate(text) == nil)
        #expect(XattrFormat.decode(Data(text.utf8), as: Attributes.startDate) == nil)
    }

    @Test func printedDatesStillParse() {
        let date = Date(timeIntervalSinceReferenceDate: 815_000_000.895)
        let text = XattrFormat.formatDate(date)
        #expect(text == "2026-10-29T20:53:20.895Z")
        #expect(XattrFormat.parseDate(text) == date)
        #expect(
            XattrFormat.parseDate("2026-11-22T11:42:30Z") != nil
                || XattrFormat.parseDate("2026-11-22T11:42:30.000Z") != nil)
    }
}
