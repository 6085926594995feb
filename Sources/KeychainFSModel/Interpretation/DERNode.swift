import SwiftASN1

/// Small conveniences for walking parsed DER.
extension ASN1Node {
    package var children: [ASN1Node] {
        if case .constructed(let nodes) = content { return Array(nodes) }
        return []
    }

    package var primitiveBytes: ArraySlice<UInt8>? {
        if case .primitive(let bytes) = content { return bytes }
        return nil
    }

    /// The content octets (without tag and length), for constructed nodes too.
    package var contentBytes: ArraySlice<UInt8> {
        if let primitiveBytes { return primitiveBytes }
        let bytes = encodedBytes
        let lengthByte = bytes[bytes.startIndex + 1]
        let header = lengthByte < 0x80 ? 2 : 2 + Int(lengthByte & 0x7F)
        return bytes.dropFirst(header)
    }

    package func isContextSpecific(_ tag: UInt) -> Bool {
        identifier == ASN1Identifier(tagWithNumber: tag, tagClass: .contextSpecific)
    }
}

package enum DEREncoding {
    /// A DER SEQUENCE around already-encoded elements.
    package static func sequence(_ elements: [ArraySlice<UInt8>]) -> [UInt8] {
        let body = elements.flatMap { $0 }
        return [0x30] + length(body.count) + body
    }

    package static func length(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var value = n
        while value > 0 { bytes.insert(UInt8(value & 0xFF), at: 0); value >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
