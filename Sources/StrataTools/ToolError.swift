/// An error of the schema tools that is the caller's to fix (a table name that does not exist).
///
/// ```swift
/// do { _ = try schema.selecting(["nope"]) }
/// catch let error as ToolError { print(error) }   // no table named "nope"; the tables are: note, author
/// ```
public struct ToolError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in a sentence.
    ///
    /// ```swift
    /// error.description
    /// ```
    public let description: String

    /// An error with this message.
    ///
    /// ```swift
    /// throw ToolError("no table named \"nope\"")
    /// ```
    public init(_ description: String) {
        self.description = description
    }
}
