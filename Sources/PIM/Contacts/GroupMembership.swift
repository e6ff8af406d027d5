// Contact groups: `group add NAME CONTACT...` makes the group on first use and adds members;
// groups are many-to-many with contacts, so a contact can be in several.
import Foundation
import ObjectGraph

extension PIMStore {
    /// The group numbered `name` or called `name` (ignoring case), made if there is none; and
    /// whether it was made. A number names a group as it does everywhere (pim(1) NAMING RECORDS);
    /// one that numbers no group is a new group's name.
    public func group(named name: String) throws(PIMError) -> (group: Group, isNew: Bool) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PIMError.usage("a group needs a name") }
        var request = FetchRequest<Group>(entityName: "Group")
        do {
            request.predicate = try Int64(trimmed).map { try ObjectGraph.Predicate(format: "number == %@ OR name ==[c] %@", $0, trimmed) }
                ?? ObjectGraph.Predicate(format: "name ==[c] %@", trimmed)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        request.sortDescriptors = [ObjectGraph.SortDescriptor(key: "number")]
        let found = try fetch(request)
        if let existing = found.first(where: { String($0.number) == trimmed }) ?? found.first { return (existing, false) }
        guard let group = insertRecord("Group") as? Group else {
            preconditionFailure("the Group entity is not represented by its generated class")
        }
        group.name = trimmed
        return (group, true)
    }

    /// Adds the contacts `references` name to the group `name`, making the group if needed;
    /// the group, and whether it was made.
    public func addToGroup(_ name: String, contacts references: [String]) throws(PIMError) -> (group: Group, isNew: Bool) {
        let resolver = RecordResolver(store: self)
        let contacts = try references.map { reference throws(PIMError) in try resolver.resolve(reference, as: .contact) }
        let (group, isNew) = try group(named: name)
        for contact in contacts.compactMap({ $0 as? Contact }) { group.addToMembers(contact) }
        return (group, isNew)
    }
}

extension PIMStore {
    /// The predicate matching the contacts in `group`.
    public func membersPredicate(of group: ManagedObject) throws(PIMError) -> ObjectGraph.Predicate {
        do {
            return try ObjectGraph.Predicate(format: "ANY groups == %@", group)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
    }
}
