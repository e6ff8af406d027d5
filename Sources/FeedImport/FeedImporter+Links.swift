// Links: relationships of imported records set to objects already in the store (or made in this
// import), found by a predicate on each value the record gives: an event's attendees by their
// e-mail addresses, a task's tags by name (made when missing). A value that finds nothing is
// looked up again when the feed has been read: a subtask may come before its parent.
import Foundation
import ObjectGraph

extension FeedImporter {
    /// Checks a record rule's links against the model: the relationship, its predicate, and the
    /// String attributes it creates objects with.
    static func checkLinks(_ rule: FeedRecordRule, of entity: EntityDescription, at path: String, origin: String) throws(FeedImportError) {
        for link in rule.links {
            let place = "\(path).links.\(link.relationship)"
            guard let relationship = entity.relationshipsByName[link.relationship], let destination = relationship.destinationEntity else {
                throw .mapping(FeedMappingError(origin: origin, path: place, message: "\(entity.name) has no relationship \(link.relationship)"))
            }
            do {
                _ = try ObjectGraph.Predicate(format: link.match).withSubstitutionVariables(["value": "", "uuid": UUID()])
            } catch {
                throw .mapping(FeedMappingError(origin: origin, path: "\(place).match", message: "\(error)"))
            }
            for name in (link.create ?? [:]).keys.sorted() where destination.attributesByName[name]?.attributeType != .string {
                throw .mapping(FeedMappingError(origin: origin, path: "\(place).create.\(name)",
                                                message: "\(destination.name) has no String attribute \(name)"))
            }
            if link.create != nil, destination.isAbstract {
                throw .mapping(FeedMappingError(origin: origin, path: "\(place).create", message: "\(destination.name) is abstract"))
            }
        }
    }

    /// The objects each link of the record's rule points at, by relationship. The values that
    /// found nothing are left in ``missedLinks``.
    func linkTargets(of element: FeedRecordElement, entity: EntityDescription) throws(FeedImportError) -> [(String, [ManagedObject])] {
        var targets: [(String, [ManagedObject])] = []
        missedLinks = []
        for link in element.rule.links {
            guard let destination = entity.relationshipsByName[link.relationship]?.destinationEntity else { continue }
            var objects: [ManagedObject] = []
            for value in try linkValues(of: link.value, in: element) {
                let found = try linkedObjects(link, destination: destination, value: value)
                if found.isEmpty { missedLinks.append(PendingLink(link: link, destination: destination, value: value)) }
                for object in found where !objects.contains(where: { $0 === object }) {
                    objects.append(object)
                }
            }
            targets.append((link.relationship, objects))
        }
        return targets
    }

    /// Sets the links of `object`; whether any changed.
    func applyLinks(_ targets: [(String, [ManagedObject])], to object: ManagedObject) -> Bool {
        var changed = false
        for (name, objects) in targets {
            guard let relationship = object.entity.relationshipsByName[name] else { continue }
            if relationship.isToMany {
                let proxy = object.mutableSetValue(forKey: name)
                let current = proxy.objects
                guard Set(current.map(ObjectIdentifier.init)) != Set(objects.map(ObjectIdentifier.init)) else { continue }
                for old in current where !objects.contains(where: { $0 === old }) { proxy.remove(old) }
                for new in objects where !current.contains(where: { $0 === new }) { proxy.insert(new) }
                changed = true
            } else {
                let current = object.value(forKey: name) as? ManagedObject
                guard current !== objects.first else { continue }
                object.setValue(objects.first, forKey: name)
                changed = true
            }
        }
        return changed
    }

    /// Looks up again the link values that found nothing when their records were read, now that
    /// the feed has been read: a value that finds its object now is added to the relationship (a
    /// to-one relationship is set if still empty). Those that still find nothing are tried again
    /// after the next feed this importer reads.
    func resolvePendingLinks() throws(FeedImportError) {
        guard !pendingLinks.isEmpty else { return }
        linkCache = linkCache.filter { !$0.value.isEmpty }
        var unresolved: [(object: ManagedObject, link: PendingLink)] = []
        for (object, pending) in pendingLinks where !object.isDeleted {
            let found = try linkedObjects(pending.link, destination: pending.destination, value: pending.value)
            guard !found.isEmpty else {
                unresolved.append((object, pending))
                continue
            }
            guard let relationship = object.entity.relationshipsByName[pending.link.relationship] else { continue }
            var changed = false
            if relationship.isToMany {
                let proxy = object.mutableSetValue(forKey: relationship.name)
                for target in found where !proxy.objects.contains(where: { $0 === target }) {
                    proxy.insert(target)
                    changed = true
                }
            } else if object.value(forKey: relationship.name) == nil {
                object.setValue(found.first, forKey: relationship.name)
                changed = true
            }
            if changed { countLinkedLate(object) }
        }
        pendingLinks = unresolved
    }

    /// The object of `destination` that `link`'s predicate matches with `value` (of several, the
    /// one of this import's source, else the one whose identity is the value, else the first: a
    /// value names one object, though records of other sources may share a UID), or the one it
    /// makes when none does; found once per import.
    private func linkedObjects(_ link: FeedLinkRule, destination: EntityDescription, value: String) throws(FeedImportError) -> [ManagedObject] {
        let cacheKey = "\(destination.name)\u{1F}\(link.match)\u{1F}\(value)"
        if let cached = linkCache[cacheKey] { return cached }
        var request = FetchRequest<ManagedObject>(entityName: destination.name)
        var found: [ManagedObject]
        let named = Self.uuid(in: value)
        do {
            // `$uuid` is the value as a UUID (bare or `urn:uuid:`), else the nil UUID, which names
            // no object: `uuid == $uuid` finds a record by the identity it was exported with.
            let identity = named ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            request.predicate = try ObjectGraph.Predicate(format: link.match).withSubstitutionVariables(["value": value, "uuid": identity])
            found = try context.fetch(request)
        } catch {
            throw .unreadable(feed: feedName, reason: "cannot look up \(destination.name) for \(link.relationship) \"\(value)\": \(error)")
        }
        if found.count > 1 {
            let identified = named.flatMap { uuid in found.first { Self.value(of: options.identityAttribute, in: $0) as? UUID == uuid } }
            let own = found.first { Self.value(of: options.sourceAttribute, in: $0) as? String == options.source }
            found = [identified ?? own ?? found[0]]
        }
        if found.isEmpty, let create = link.create {
            let made = context.insertNewObject(forEntityName: destination.name)
            for (name, template) in create { made.setValue(template.replacingOccurrences(of: "$value", with: value), forKey: name) }
            found = [made]
        }
        linkCache[cacheKey] = found
        return found
    }
}

extension FeedImporter {
    /// The value of `attribute` of `object`, nil when it has no such attribute.
    fileprivate static func value(of attribute: String?, in object: ManagedObject) -> Any? {
        guard let attribute, object.entity.attributesByName[attribute] != nil else { return nil }
        return object.value(forKey: attribute)
    }
}

/// A link value that found no object when its record was read.
struct PendingLink {
    let link: FeedLinkRule
    let destination: EntityDescription
    let value: String
}
