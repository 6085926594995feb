/// A set of SHA-256 PCRs (0-23) a sealed key is bound to, written as systemd-cryptenroll writes it: "7",
/// "0,7,11", "" for none.
package struct PCRSelection: Codable, Equatable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    package let indices: [Int]

    package init(arrayLiteral elements: Int...) { self.init(uncheckedIndices: elements) }

    private init(uncheckedIndices: [Int]) { indices = Array(Set(uncheckedIndices)).sorted() }

    /// Parses "7,11"; nil for anything else than comma-separated PCR numbers 0-23.
    package init?(parsing text: String) {
        if text.isEmpty {
            self.init(uncheckedIndices: [])
            return
        }
        var parsed: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false).prefix(25) {
            guard let index = Int(part), (0...23).contains(index) else { return nil }
            parsed.append(index)
        }
        guard parsed.count <= 24 else { return nil }
        self.init(uncheckedIndices: parsed)
    }

    package init(from decoder: any Decoder) throws {
        let indices = try decoder.singleValueContainer().decode([Int].self)
        guard indices.count <= 24, indices.allSatisfy((0...23).contains) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "PCRs are 0-23"))
        }
        self.init(uncheckedIndices: indices)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(indices)
    }

    package var isEmpty: Bool { indices.isEmpty }
    var mask: UInt32 { indices.reduce(0) { $0 | 1 << UInt32($1) } }
    package var description: String { indices.map(String.init).joined(separator: ",") }
}
