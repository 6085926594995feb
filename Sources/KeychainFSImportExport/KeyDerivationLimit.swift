import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The work an imported file may ask of the key derivation, checked before any derivation runs: a 1 KB
/// `.p12` asking for 2^31 PBKDF2 iterations would otherwise derive for an hour. As .NET's PKCS#12 loader
/// and OpenSSL's scrypt memory bound do, a file over the limits is refused with errSecParam and a message
/// naming what it asks (never errSecAuthFailed: the passphrase was not tried). Limits (docs/security-verbs.md, import):
/// 1,000,000 iterations per derivation (OpenSSL 3 writes 2,048), scrypt with at most
/// 32 MiB of memory (OpenSSL's default) and N·r·p ≤ 2^22.
package enum KeyDerivationLimit {
    package static let maximumIterations: Int64 = 1_000_000
    package static let maximumScryptMemory: Int64 = 32 << 20
    package static let maximumScryptWork: Int64 = 1 << 22

    /// Checks every password-based algorithm of `der` (PBKDF2, PKCS#12 and PKCS#5 v1 PBEs, scrypt),
    /// however deep, including DER wrapped in OCTET STRINGs (PKCS#12's safes and bags).
    package static func check(der: Data) throws(KeychainError) {
        try walk(Array(der)[...], depth: 0)
    }

    /// A PKCS#12 MAC's iteration count.
    static func checkIterations(_ iterations: Int64, of what: String) throws(KeychainError) {
        guard iterations <= maximumIterations else {
            throw KeychainError(
                SecStatus.param,
                "the file asks for \(iterations) \(what) iterations, more than the limit of \(maximumIterations)")
        }
    }

    // MARK: DER

    /// One TLV: its tag and content.
    private struct Node {
        var tag: UInt8
        var content: ArraySlice<UInt8>
        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    /// The TLVs of `bytes` in order; nil unless they cover it exactly (definite lengths, one-byte tags).
    private static func nodes(_ bytes: ArraySlice<UInt8>) -> [Node]? {
        var nodes: [Node] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let tag = bytes[i]
            guard tag & 0x1F != 0x1F, i + 1 < bytes.endIndex else { return nil }
            var length = Int(bytes[i + 1]), start = i + 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count >= 1, count <= 4, start + count <= bytes.endIndex else { return nil }
                length = bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            guard length <= bytes.endIndex - start else { return nil }
            nodes.append(Node(tag: tag, content: bytes[start..<start + length]))
            i = start + length
        }
        return nodes
    }

    private static func walk(_ bytes: ArraySlice<UInt8>, depth: Int) throws(KeychainError) {
        guard depth < 32, let nodes = nodes(bytes) else { return }
        for node in nodes {
            if node.tag == 0x30, let children = Self.nodes(node.content), children.count == 2, children[0].tag == 0x06 {
                try checkAlgorithm(Array(children[0].content), parameters: children[1])
            }
            if node.isConstructed || node.tag == 0x04 { try walk(node.content, depth: depth + 1) }
        }
    }

    private static let pbkdf2: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C]
    private static let scrypt: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0xDA, 0x47, 0x04, 0x0B]
    /// pkcs-12PbeIds (1.2.840.113549.1.12.1.x) and PKCS#5 v1's pbeWith… (1.2.840.113549.1.5.x, x < 12).
    private static let pkcs12PBE: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x01]
    private static let pkcs5: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05]

    private static func checkAlgorithm(_ oid: [UInt8], parameters: Node) throws(KeychainError) {
        guard parameters.tag == 0x30, let fields = nodes(parameters.content) else { return }
        let integers = fields.map { $0.tag == 0x02 ? integer($0.content) : nil }
        let isPBE =
            (oid.count == 10 && oid.starts(with: pkcs12PBE))
            || (oid.count == 9 && oid.starts(with: pkcs5) && oid[8] < 12)
        if oid == pbkdf2 || isPBE {
            // PBKDF2-params and PBEParameter: salt, then the iteration count.
            if integers.count > 1, let iterations = integers[1] {
                try checkIterations(iterations, of: "key-derivation")
            }
        } else if oid == scrypt, integers.count >= 4, let n = integers[1], let r = integers[2], let p = integers[3] {
            let nr = n.multipliedReportingOverflow(by: r)
            let memory = nr.partialValue.multipliedReportingOverflow(by: 128),
                work = nr.partialValue.multipliedReportingOverflow(by: p)
            guard !nr.overflow, !memory.overflow, !work.overflow, memory.partialValue <= maximumScryptMemory,
                work.partialValue <= maximumScryptWork
            else {
                throw KeychainError(
                    SecStatus.param,
                    "the file asks for scrypt with N=\(n), r=\(r), p=\(p), more than the limit of "
                        + "\(maximumScryptMemory >> 20) MiB of memory (128·N·r) and N·r·p ≤ \(maximumScryptWork)")
            }
        }
    }

    /// A non-negative INTEGER of at most 8 bytes; larger ones read as Int64.max (over any limit).
    private static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        let significant = bytes.drop { $0 == 0 }
        guard let first = bytes.first, first & 0x80 == 0 else { return nil }
        guard significant.count <= 7 else { return .max }
        return significant.reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
}
