import Synchronization

/// A `Sendable` set of handles on one database file in WAL mode: one writer and several readers, so
/// that threads and tasks can read while one writes. Each handle keeps its own identity map; model
/// objects stay inside the closure that fetched them (return `Sendable` values, such as rows, counts
/// or your own structs).
///
/// ```swift
/// let pool = try DatabasePool(path: "app.sqlite", readers: 4)
/// try pool.write { db in let order = Order(); order.total = 42; try db.save(order) }
/// let total = try pool.read { db in try db.count(Order.self) }
/// ```
public final class DatabasePool: Sendable {
    /// The file all handles open. ```swift pool.path ```
    public let path: String
    private let writer: Mutex<Database>
    private let readers: [Handle]
    private let nextReader = Atomic<Int>(0)

    /// Opens the writer (which turns on `journal_mode=WAL`) and `readers` read-only handles.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite")
    /// ```
    public init(path: String, readers: Int = 4, configuration: Database.Configuration = Database.Configuration()) throws {
        self.path = path
        let writer = try Database(path: path, configuration: configuration)
        try writer.execute("PRAGMA journal_mode = WAL")
        self.writer = Mutex(writer)
        var handles: [Handle] = []
        for _ in 0..<max(1, readers) {
            let reader = try Database(path: path, configuration: configuration)
            try reader.execute("PRAGMA query_only = ON")
            handles.append(Handle(reader))
        }
        self.readers = handles
    }

    /// Runs `body` with the writer handle, in an IMMEDIATE transaction; writers wait for each other.
    ///
    /// ```swift
    /// let id = try pool.write { db in let order = Order(); try db.save(order); return order.id }
    /// ```
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try writer.withLock { db in
            try db.transaction(.immediate) { try body(db) }
        }
    }

    /// Runs `body` with a reader handle (read-only), alongside other readers and the writer; it sees the
    /// database as of its first read.
    ///
    /// ```swift
    /// let names = try pool.read { db in try db.objects(Employee.self).map(\.name) }
    /// ```
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        let start = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        // Take the first free reader, starting from a rotating position; if all are busy, wait for one.
        for offset in 0..<readers.count {
            let reader = readers[(start &+ offset) % readers.count]
            if let result = try reader.mutex.withLockIfAvailable({ db in try db.transaction(.deferred) { try body(db) } }) {
                return result
            }
        }
        return try readers[start % readers.count].mutex.withLock { db in try db.transaction(.deferred) { try body(db) } }
    }
}

/// One handle behind its own lock (`Mutex` cannot sit in an array directly: it is not copyable).
private final class Handle: Sendable {
    let mutex: Mutex<Database>
    init(_ database: sending Database) { mutex = Mutex(database) }
}
