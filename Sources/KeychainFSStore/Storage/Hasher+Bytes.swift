import Foundation

extension Hasher {
    /// A blob's length and bytes as they are: `Data`'s own hashing, through its representations, cost
    /// several times more (measured).
    package mutating func combine(contentsOf data: Data) {
        combine(data.count)
        data.withUnsafeBytes { combine(bytes: $0) }
    }
}
