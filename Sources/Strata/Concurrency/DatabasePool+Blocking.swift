// The blocking forms of the pool's reads and writes (issue 36, point 9). They are not overloads of the
// async `read`/`write`: in top-level code (`main.swift`), Swift's overload resolution prefers a synchronous
// overload even under `await` (it only warns "no 'async' operations occur within 'await' expression"),
// so `try await pool.write { }` blocked the main thread where the README says it suspends. Under their
// own name there is nothing to choose between.
extension DatabasePool {
    /// The pool's calls that block the calling thread until done, for scripts, tools and synchronous
    /// functions. In async code (top-level code with `await` included) use the async `read` and `write`.
    ///
    /// ```swift
    /// func importAll(into pool: DatabasePool) throws {           // a synchronous function
    ///     try pool.blocking.write { db in try db.save(Employee()) }
    ///     let count = try pool.blocking.read { db in try db.count(Employee.self) }
    /// }
    /// ```
    public var blocking: Blocking { Blocking(pool: self) }

    /// The blocking calls of a ``DatabasePool`` (see ``DatabasePool/blocking``).
    ///
    /// ```swift
    /// let names = try pool.blocking.read { db in try db.objects(Employee.self).map(\.name) }
    /// ```
    public struct Blocking: Sendable {
        /// The pool the calls go to.
        ///
        /// ```swift
        /// pool.blocking.pool === pool   // true
        /// ```
        public let pool: DatabasePool

        /// Runs `body` with the writer handle, in an IMMEDIATE transaction, and blocks the calling thread
        /// until it is done; writers wait for each other.
        ///
        /// ```swift
        /// let id = try pool.blocking.write { db in
        ///     let order = Order(); try db.save(order)
        ///     return order.id
        /// }
        /// ```
        @discardableResult
        public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
            try pool.checkUsable()
            return try pool.writer.sync { db in try db.transaction(.immediate) { try body(db) } }
        }

        /// Runs `body` with a reader handle, in a DEFERRED transaction: it sees the database as of its
        /// first read, alongside other readers and the writer. Blocks the calling thread.
        ///
        /// ```swift
        /// let names = try pool.blocking.read { db in
        ///     try db.objects(Employee.self).map(\.name)
        /// }
        /// ```
        public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
            try pool.checkUsable()
            if let replica = pool.replica { return try replica.blockingRead(in: pool, body) }
            let reader = pool.acquireReader()
            defer { pool.release(reader) }
            return try reader.sync { db in try DatabasePool.readTransaction(db, job: nil, body) }
        }

        /// Runs `body` with the writer handle outside any transaction (`VACUUM`), blocking the calling
        /// thread; see ``DatabasePool/writeWithoutTransaction(_:)``.
        ///
        /// ```swift
        /// try pool.blocking.writeWithoutTransaction { db in
        ///     try db.execute("VACUUM")
        /// }
        /// ```
        @discardableResult
        public func writeWithoutTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
            try pool.checkUsable()
            return try pool.writer.sync { db in try body(db) }
        }

        /// Syncs the table of `type` on the writer, outside any transaction (an opt-in rebuild can run),
        /// blocking the calling thread; see ``DatabasePool/syncSchema(_:)-(M.Type)``.
        ///
        /// ```swift
        /// try pool.blocking.syncSchema(Shelf.self)
        /// ```
        @discardableResult
        public func syncSchema<M: Model>(_ type: M.Type) throws -> SchemaPlan {
            try pool.checkUsable()
            return try pool.writer.sync { try $0.syncSchema(type) }
        }

        /// Waits for the work already queued, then closes every handle; later calls throw `.misuse`.
        /// Blocks the calling thread.
        ///
        /// When a connection cannot close (SQLite's ``ResultCode/busy``: a statement prepared outside the
        /// library is still open on it), the error is thrown, the pool takes no new work, and calling
        /// `close()` again tries the connections still open.
        ///
        /// ```swift
        /// try pool.blocking.close()
        /// ```
        public func close() throws {
            try pool.closeBlocking()
        }

        /// Waits for the reads running, holds new ones, and runs `body` with the writer handle outside any
        /// transaction, blocking the calling thread; see ``DatabasePool/barrierWriteWithoutTransaction(_:)``.
        ///
        /// ```swift
        /// try pool.blocking.barrierWriteWithoutTransaction { db in
        ///     try db.execute("VACUUM")
        /// }
        /// ```
        @discardableResult
        public func barrierWriteWithoutTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
            try pool.checkUsable()
            let barrier = ReaderBarrier(holding: pool.readers, of: pool)
            defer { barrier.release() }
            barrier.waitForReaders()
            return try pool.writer.sync { db in try body(db) }
        }
    }
}
