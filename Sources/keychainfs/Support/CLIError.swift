/// A command-line failure with a sentence for the user (ArgumentParser prints it and exits 1).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
