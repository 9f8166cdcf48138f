/// The cycle check behind relationship holds. A relationship holds its target strongly (so reading it
/// again costs nothing for as long as the owner lives) unless the target already holds the owner —
/// directly, or through other relationships and loaded ``Children`` arrays. Every strong hold between
/// models is made through this check (for ``Children``, the children hold the parent weakly, or the array
/// holds weakly those that held it strongly already, and the array is kept only when no child holds the
/// parent through others: ``ChildrenRule``), so no
/// cycle of strong holds can form: objects that refer to each other are freed when the user lets go of
/// them.
enum StrongHolds {
    /// How many objects the walk visits before it gives up and answers "reaches" (a weak hold: safe,
    /// at worst one more query later).
    static let limit = 256

    /// Whether `start` holds `goal` strongly, directly or through others.
    static func reaches(from start: ModelObject, to goal: ModelObject) -> Bool {
        if start === goal { return true }
        // The common case: the target holds nothing (a department without loaded children).
        guard let first = metadata(of: start) else { return false }
        if first.heldArrays.isEmpty && first.relationshipFields.allSatisfy({ $0.strongTarget(of: start) == nil }) { return false }
        var stack = [start]
        var seen: Set<ObjectIdentifier> = []
        while let object = stack.popLast() {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            if seen.count > limit { return true }
            guard let metadata = metadata(of: object) else { continue }
            for field in metadata.relationshipFields {
                guard let held = field.strongTarget(of: object) else { continue }
                if held === goal { return true }
                stack.append(held)
            }
            for array in metadata.heldArrays {
                for held in array.objects(of: object) {
                    if held === goal { return true }
                    stack.append(held)
                }
            }
        }
        return false
    }

    /// Whether objects of one of `starts` could hold an object of `goal` strongly, directly or through
    /// others, as the types declare it (their relationships and loaded arrays): when not, no object of
    /// those types needs the walk of ``reaches(from:to:)``.
    static func typesMayReach(_ goal: any Model.Type, from starts: [any Model.Type]) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        var queue = starts
        while let type = queue.popLast() {
            if type == goal { return true }
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            // A type that cannot be reflected holds nothing Strata knows of; answer "may" to stay safe.
            guard let metadata = try? ModelMetadata.of(type) else { return true }
            queue += metadata.properties.compactMap(\.related)
            queue += metadata.heldArrays.compactMap(\.relatedType)
        }
        return false
    }

    /// What a parent that loads its ``Children`` (property `index` of the child model, `by:`) must do so
    /// that its array of children forms no cycle of strong holds: decided once per query, from the types.
    struct ChildrenRule {
        /// The children's other references to the parent's type: their strong hold on this parent is
        /// made weak, as the `by:` reference's is.
        let parentFields: [AnyFieldIO]
        /// Whether a child could still hold the parent through others (the types allow it): each child
        /// is then checked before the array is kept.
        let checksEachChild: Bool

        init(parent: any Model.Type, child: ModelMetadata, by index: Int) {
            var parentFields: [AnyFieldIO] = [], others: [any Model.Type] = []
            for (i, property) in child.properties.enumerated() where i != index {
                guard let related = property.related, case .generic(let io) = property.accessor else { continue }
                if related == parent { parentFields.append(io) }
                others.append(related)
            }
            others += child.heldArrays.compactMap(\.relatedType)
            self.parentFields = parentFields
            checksEachChild = StrongHolds.typesMayReach(parent, from: others)
        }

        /// Whether `parent` may hold `children` (just loaded: their `by:` reference already points weakly
        /// at it; `holdsOther`: some child's `by:` reference holds another object strongly) without a
        /// cycle, after turning their other strong holds on it into weak ones.
        /// Turns the children's strong holds on `parent` through their other references into weak ones.
        func weakenHolds(on parent: ModelObject, in children: [ModelObject]) {
            for field in parentFields { field.weakenHold(on: parent, in: children) }
        }

        /// Per child, whether it holds `parent` strongly already: through its `by:` reference (`byHolding`,
        /// from ``AnyFieldIO/attachResolved(_:key:to:)``) or another reference to the parent's type; nil
        /// when none does (the usual case: the parent was fetched first).
        func childrenHolding(_ parent: ModelObject, in children: [ModelObject], byHolding: [Bool]?) -> [Bool]? {
            guard !parentFields.isEmpty else { return byHolding }
            var holding = byHolding
            for (i, child) in children.enumerated() where parentFields.contains(where: { $0.strongTarget(of: child) === parent }) {
                if holding == nil { holding = [Bool](repeating: false, count: children.count) }
                holding?[i] = true
            }
            return holding
        }

        func parentMayHold(_ children: [ModelObject], of parent: ModelObject, holdsOther: Bool) -> Bool {
            weakenHolds(on: parent, in: children)
            guard checksEachChild || holdsOther else { return true }
            return !children.contains { StrongHolds.reaches(from: $0, to: parent) }
        }
    }

    private static func metadata(of object: ModelObject) -> ModelMetadata? {
        if let registry = object._registry { return registry.metadata }
        guard let type = type(of: object) as? any Model.Type else { return nil }
        return try? ModelMetadata.of(type)
    }
}

extension Database {
    /// After a rollback undid the inserts of `undone` (now unsaved again): the live instances of `live`
    /// stop holding them. A reference that resolved its stored key to one lets go of it and keeps the key,
    /// which the next read looks up again (nil, or `notFound`, when no row has it); one that was assigned
    /// it and not saved since keeps it as an object still to be saved. A loaded array that holds one is
    /// dropped, and read again next time.
    func releaseUndoneInserts(_ undone: [ModelObject], heldBy live: [(ModelObject, TypeRegistry)]) {
        let ids = Set(undone.map(ObjectIdentifier.init))
        for (object, registry) in live {
            let metadata = registry.metadata
            for (index, property) in metadata.properties.enumerated() where property.related != nil {
                guard case .generic(let io) = property.accessor, let held = io.heldTarget(of: object),
                      ids.contains(ObjectIdentifier(held)) else { continue }
                // The key it holds is the row's (a resolved or saved reference): let go and keep the key.
                // (A saved reassignment is undone by the refresh that follows, which reads the row.)
                let stored = io.storedKey(of: object)
                if let remembered = registry.snapshotWord(of: object, at: index), !SnapshotWord(stored).matches(remembered) {
                    io.holdUnsaved(held, in: object)
                } else {
                    io.dropHeld(of: object)
                }
            }
            for array in metadata.heldArrays where array.objects(of: object).contains(where: { ids.contains(ObjectIdentifier($0)) }) {
                array.invalidate(of: object)
            }
        }
    }
}

extension ModelMetadata {
    /// The reference fields of `object` that hold `object` itself (only a self-referencing type has any):
    /// a new object that refers to itself is inserted with them unset, then updated with its own key.
    func fieldsHoldingItself(_ object: ModelObject) -> [AnyFieldIO] {
        ownTypeFields.isEmpty ? [] : ownTypeFields.filter { $0.holdsItself(object) }
    }
}
