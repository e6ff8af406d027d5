// Contact groups: `group add NAME CONTACT...` makes the group on first use and adds members;
// groups are many-to-many with contacts, so a contact can be in several.
import Foundation
import ObjectGraph

extension PIMStore {
    /// The group called `name` (ignoring case), made if there is none; and whether it was made.
    public func group(named name: String) throws(PIMError) -> (group: Group, isNew: Bool) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw PIMError.usage("a group needs a name") }
        var request = FetchRequest<Group>(entityName: "Group")
        do {
            request.predicate = try ObjectGraph.Predicate(format: "name ==[c] %@", trimmed)
        } catch {
            throw PIMError.wrapping(error, storePath: url.path)
        }
        if let existing = try fetch(request).first { return (existing, false) }
        guard let group = insertRecord("Group") as? Group else {
            preconditionFailure("the Group entity is not represented by its generated class")
        }
        group.name = trimmed
        return (group, true)
    }

    /// Adds the contacts `references` name to the group `name`, making the group if needed.
    public func addToGroup(_ name: String, contacts references: [String]) throws(PIMError) -> Group {
        let resolver = RecordResolver(store: self)
        let contacts = try references.map { reference throws(PIMError) in try resolver.resolve(reference, as: .contact) }
        let group = try group(named: name).group
        for contact in contacts.compactMap({ $0 as? Contact }) { group.addToMembers(contact) }
        return group
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
