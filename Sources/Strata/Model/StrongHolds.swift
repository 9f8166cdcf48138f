/// The cycle check behind relationship holds. A relationship holds its target strongly (so reading it
/// again costs nothing for as long as the owner lives) unless the target already holds the owner —
/// directly, or through other relationships and loaded ``Children`` arrays. Every strong hold between
/// models is made through this check (or, for ``Children``, turns the children's hold on the parent into a
/// weak one), so no cycle of strong holds can form: objects that refer to each other are freed when the
/// user lets go of them.
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

    private static func metadata(of object: ModelObject) -> ModelMetadata? {
        if let registry = object._registry { return registry.metadata }
        guard let type = type(of: object) as? any Model.Type else { return nil }
        return try? ModelMetadata.of(type)
    }
}
