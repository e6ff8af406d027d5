// An object filled from a fetched row reads its stored attributes from the row until something
// else needs its slots (a change, a relationship, a transient): the values seen through every
// accessor stay the same across that switch, and changes, undo, saves and refreshes behave as
// for any object. Typed reads (`attribute(atSlot:as:)`, what generated getters call) answer what
// `value(atSlot:) as?` answers, from the row and from unpacked slots.
import Foundation
import XCTest
@testable import ObjectGraph

final class RowValuesTests: XCTestCase {
    static let model = ManagedObjectModel {
        Entity("Contact") {
            Attribute("name", .string)
            Attribute("email", .string)
            Attribute("age", .integer32)
            Attribute("born", .date)
            Attribute("label", .string, default: "none").transient()
            Relationship("company", to: "Company", inverse: "staff")
        }
        Entity("Company") {
            Attribute("name", .string)
            Relationship("staff", to: "Contact", inverse: "company", toMany: true)
        }
    }

    private let born = Date(timeIntervalSinceReferenceDate: 12_345)

    /// A SQLite stack holding one saved contact (and its company), and a second context in
    /// which the contact is fetched fresh, filled from its row.
    private func fetchedContact() throws -> (Stack, ManagedObject) {
        let stack = try Stack(storeType: .sqlite, model: Self.model, undo: true)
        let company = stack.insert("Company", ["name": "Analytical Engines"])
        stack.insert("Contact", ["name": "Ada", "email": "ada@example.com", "age": 36, "born": born, "company": company])
        try stack.context.save()
        let other = stack.newContext()
        other.undoManager = UndoManager()
        let contacts = try stack.fetch("Contact", in: other)
        let contact = try XCTUnwrap(contacts.first)
        return (stack, contact)
    }

    private func slot(_ name: String, of object: ManagedObject) -> Int {
        object.layout.index(of: name)!
    }

    func testStoredAttributesReadTheSameBeforeAndAfterTheSlotsAreNeeded() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }  // the contact's context lives as long as the stack
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Ada")
        XCTAssertEqual(contact.value(atSlot: slot("age", of: contact)) as? Int32, 36)
        XCTAssertEqual(contact.value(atSlot: slot("born", of: contact)) as? Date, born)
        XCTAssertFalse(contact.rowValues.isEmpty, "a filled fault keeps its row until its slots are needed")
        // A transient attribute is not in the row: reading it unpacks the slots, with its default.
        XCTAssertEqual(contact.value(forKey: "label") as? String, "none")
        XCTAssertTrue(contact.rowValues.isEmpty)
        XCTAssertEqual(contact.value(forKey: "email") as? String, "ada@example.com")
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Ada")
        XCTAssertEqual((contact.value(forKey: "company") as? ManagedObject)?.value(forKey: "name") as? String, "Analytical Engines")
        XCTAssertFalse(contact.hasChanges)
    }

    func testAChangeToARowBackedObjectIsTrackedUndoneAndSaved() throws {
        let (stack, contact) = try fetchedContact()
        let context = try XCTUnwrap(contact.managedObjectContext)
        XCTAssertEqual(contact.value(atSlot: slot("email", of: contact)) as? String, "ada@example.com")
        contact.setValue("ada@engines.example", forKey: "email")
        XCTAssertEqual(contact.changedValues().keys.sorted(), ["email"])
        XCTAssertEqual(contact.committedValues(forKeys: ["email"])["email"] as? String, "ada@example.com")
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Ada", "unchanged values survive unpacking")
        context.processPendingChanges()
        context.undoManager?.undo()
        XCTAssertEqual(contact.value(forKey: "email") as? String, "ada@example.com")
        contact.setValue(37, forKey: "age")
        try context.save()

        let third = stack.newContext()
        let rereads = try stack.fetch("Contact", in: third)
        let reread = try XCTUnwrap(rereads.first)
        XCTAssertEqual(reread.value(forKey: "age") as? Int32, 37)
        XCTAssertEqual(reread.value(forKey: "email") as? String, "ada@example.com")
        XCTAssertEqual(reread.value(forKey: "name") as? String, "Ada")
    }

    func testARefreshedRowBackedObjectShowsTheStoresNewValues() throws {
        let (stack, contact) = try fetchedContact()
        let context = try XCTUnwrap(contact.managedObjectContext)
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Ada")
        // Another context changes the row; a refresh makes the object read the new one.
        let originals = try stack.fetch("Contact")
        let original = try XCTUnwrap(originals.first)
        original.setValue("Augusta Ada", forKey: "name")
        try stack.context.save()
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Ada", "no refresh yet: the snapshot it was filled with")
        context.refresh(contact, mergeChanges: false)
        XCTAssertTrue(contact.isFault)
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Augusta Ada")
        XCTAssertEqual(contact.value(forKey: "email") as? String, "ada@example.com")
    }

    func testTypedReadsAnswerWhatACastAnswers() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        for unpacked in [false, true] {
            if unpacked { contact.setValue("ada@engines.example", forKey: "email") }
            XCTAssertEqual(contact.attribute(atSlot: slot("name", of: contact), as: String.self), "Ada")
            XCTAssertEqual(contact.rowValues.isEmpty, unpacked)
            XCTAssertEqual(contact.attribute(atSlot: slot("age", of: contact), as: Int32.self), 36)
            XCTAssertEqual(contact.attribute(atSlot: slot("born", of: contact), as: Date.self), born)
            // Another type: nil, as `as?` gives (no conversion of Int32 to Int).
            XCTAssertNil(contact.attribute(atSlot: slot("age", of: contact), as: Int.self))
            XCTAssertNil(contact.attribute(atSlot: slot("name", of: contact), as: Date.self))
            // A protocol the value conforms to: the general cast answers.
            XCTAssertEqual(contact.attribute(atSlot: slot("name", of: contact), as: (any StringProtocol).self) as? String, "Ada")
            XCTAssertEqual(contact.attribute(atSlot: slot("age", of: contact), as: (any BinaryInteger).self) as? Int32, 36)
        }
        XCTAssertEqual(contact.attribute(atSlot: slot("email", of: contact), as: String.self), "ada@engines.example")
        contact.setValue(nil, forKey: "email")
        XCTAssertNil(contact.attribute(atSlot: slot("email", of: contact), as: String.self))
    }

    func testAWholeRowStopsBeingKnownWholeWhenItsValuesChange() throws {
        let entity = try XCTUnwrap(Self.model.entitiesByName["Contact"])
        let id = ObjectID.temporary(for: entity)
        let values = entity.layout.properties.map { _ in SnapshotValue.null }
        var whole = Snapshot(objectID: id, version: 1, wholeRow: values)
        XCTAssertTrue(whole.isWhole)
        XCTAssertFalse(Snapshot(objectID: id, version: 1, values: values).isWhole)
        // Equality and hashing look at the values only.
        XCTAssertEqual(whole, Snapshot(objectID: id, version: 1, values: values))
        XCTAssertEqual(whole.hashValue, Snapshot(objectID: id, version: 1, values: values).hashValue)
        whole.values[0] = .unloaded
        XCTAssertFalse(whole.isWhole, "a changed row may lack values: filling an object from it looks")
    }

    func testAPartialFetchStillLoadsWhatItLeftOutWhenRead() throws {
        let (stack, _) = try fetchedContact()
        let other = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Contact")
        request.propertiesToFetch = [.property("name")]
        let contacts = try other.fetch(request)
        let contact = try XCTUnwrap(contacts.first)
        XCTAssertEqual(contact.attribute(atSlot: slot("name", of: contact), as: String.self), "Ada")
        XCTAssertNotNil(contact.missingSlots)
        XCTAssertEqual(contact.attribute(atSlot: slot("email", of: contact), as: String.self), "ada@example.com")
        XCTAssertEqual(contact.value(forKey: "age") as? Int32, 36)
    }

    func testADeletedFaultOfAPartialFetchKeepsItsLeftOutValuesReadable() throws {
        // A partial fetch's row must not let the fault it becomes fill (or be deleted) from it.
        let model = ManagedObjectModel {
            Entity("Note") { Attribute("title", .string); Attribute("body", .string) }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        stack.insert("Note", ["title": "Groceries", "body": "milk, eggs"])
        try stack.context.save()
        let other = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.propertiesToFetch = [.property("title")]
        let notes = try other.fetch(request)
        let note = try XCTUnwrap(notes.first)
        note.setValue("Shopping", forKey: "title")
        other.rollback()
        XCTAssertTrue(note.isFault)
        other.delete(note)
        try other.save()
        XCTAssertEqual(note.value(forKey: "title") as? String, "Groceries")
        XCTAssertEqual(note.value(forKey: "body") as? String, "milk, eggs")
    }

    func testApplyingARowOverLoadedSlotsReleasesTheOldValues() throws {
        // A conflict resolved by the store's values fills the loaded object from the new row:
        // its old slots, and the objects they held, are released.
        let (stack, contact) = try fetchedContact()
        let context = try XCTUnwrap(contact.managedObjectContext)
        context.mergePolicy = .rollback
        weak var destination: ManagedObject?
        do { destination = contact.value(forKey: "company") as? ManagedObject; XCTAssertNotNil(destination) }
        contact.setValue("ada@engines.example", forKey: "email")
        let originals = try stack.fetch("Contact")
        let original = try XCTUnwrap(originals.first)
        original.setValue("Augusta Ada", forKey: "name")
        try stack.context.save()
        try context.save()
        XCTAssertEqual(contact.value(atSlot: slot("name", of: contact)) as? String, "Augusta Ada")
        XCTAssertFalse(contact.rowValues.isEmpty)
        XCTAssertTrue(contact.storedSlots.isEmpty)
        XCTAssertNil(destination, "the company fault the old slots held is gone")
    }

    func testTypedSetsGoIntoTheRowAndAreTrackedUndoneAndSaved() throws {
        let (stack, contact) = try fetchedContact()
        let context = try XCTUnwrap(contact.managedObjectContext)
        let email = slot("email", of: contact), age = slot("age", of: contact)
        XCTAssertEqual(contact.attribute(atSlot: email, as: String.self), "ada@example.com")
        contact.setAttribute("ada@example.com", atSlot: email)
        XCTAssertFalse(contact.hasChanges, "the same value is no change")
        contact.setAttribute("ada@engines.example", atSlot: email)
        contact.setAttribute(Int32(37), atSlot: age)
        XCTAssertFalse(contact.rowValues.isEmpty, "the row takes the new values: no slots unpacked")
        XCTAssertEqual(contact.attribute(atSlot: email, as: String.self), "ada@engines.example")
        XCTAssertEqual(contact.changedValues().keys.sorted(), ["age", "email"])
        XCTAssertEqual(contact.changedValuesForCurrentEvent()["email"] as? String, "ada@example.com")
        XCTAssertEqual(contact.committedValues(forKeys: ["email"])["email"] as? String, "ada@example.com")
        context.processPendingChanges()
        context.undoManager?.undo()
        XCTAssertEqual(contact.value(forKey: "email") as? String, "ada@example.com")
        XCTAssertEqual(contact.value(forKey: "age") as? Int32, 36)
        context.undoManager?.redo()
        XCTAssertEqual(contact.value(forKey: "age") as? Int32, 37)
        try context.save()
        let rereads = try stack.fetch("Contact", in: stack.newContext())
        let reread = try XCTUnwrap(rereads.first)
        XCTAssertEqual(reread.value(forKey: "email") as? String, "ada@engines.example")
        XCTAssertEqual(reread.value(forKey: "age") as? Int32, 37)
        XCTAssertEqual(reread.value(forKey: "name") as? String, "Ada")

        // Nil goes into the row as no value, and is saved.
        let fresh = try XCTUnwrap(try stack.fetch("Contact", in: stack.newContext()).first)
        XCTAssertEqual(fresh.attribute(atSlot: email, as: String.self), "ada@engines.example")
        fresh.setAttribute(nil as String?, atSlot: email)
        XCTAssertNil(fresh.attribute(atSlot: email, as: String.self))
        XCTAssertFalse(fresh.rowValues.isEmpty)
        try XCTUnwrap(fresh.managedObjectContext).save()
        XCTAssertNil(try XCTUnwrap(try stack.fetch("Contact", in: stack.newContext()).first).value(forKey: "email"))
    }

    func testATypedSetIntoTheRowIsValidated() throws {
        let model = ManagedObjectModel {
            Entity("Tag") { Attribute("name", .string).maximum(5) }
        }
        let stack = try Stack(storeType: .sqlite, model: model)
        stack.insert("Tag", ["name": "work"])
        try stack.context.save()
        let other = stack.newContext()
        let tags = try stack.fetch("Tag", in: other)
        let tag = try XCTUnwrap(tags.first)
        XCTAssertEqual(tag.attribute(atSlot: 0, as: String.self), "work")
        tag.setAttribute("much too long", atSlot: 0)
        XCTAssertFalse(tag.rowValues.isEmpty)
        XCTAssertThrowsError(try other.save()) { error in
            XCTAssertTrue("\(error)".contains("Tag") && "\(error)".contains("name"), "\(error)")
        }
    }

    func testATypedSetOfATransientOnARowBackedObjectIsKept() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        let label = slot("label", of: contact)
        XCTAssertEqual(contact.value(forKey: "name") as? String, "Ada")
        XCTAssertFalse(contact.rowValues.isEmpty)
        contact.setAttribute("vip", atSlot: label)
        XCTAssertEqual(contact.attribute(atSlot: label, as: String.self), "vip")
        XCTAssertEqual(contact.value(forKey: "label") as? String, "vip")
        XCTAssertTrue(contact.isUpdated, "a transient change makes the object updated")
        XCTAssertNil(contact.changedValues()["label"], "changedValues reports persistent properties only")
    }

    func testANewObjectReadsAndSetsItsAttributesInARowOfDefaults() throws {
        let model = ManagedObjectModel {
            Entity("Item") {
                Attribute("title", .string).required()
                Attribute("count", .integer32, default: 3)
                Attribute("note", .string, default: "none").transient()
            }
            Entity("Box") {
                Attribute("name", .string)
                Relationship("items", to: "Thing", inverse: "box", toMany: true)
            }
            Entity("Thing") { Relationship("box", to: "Box", inverse: "items") }
        }
        let stack = try Stack(storeType: .sqlite, model: model, undo: true)
        let item = stack.context.insertNewObject(forEntityName: "Item")
        let title = item.layout.index(of: "title")!, count = item.layout.index(of: "count")!
        XCTAssertFalse(item.rowValues.isEmpty, "an entity without to-many relationships starts with a row")
        XCTAssertEqual(item.attribute(atSlot: count, as: Int32.self), 3)
        XCTAssertNil(item.attribute(atSlot: title, as: String.self))
        XCTAssertEqual(item.value(forKey: "note") as? String, "none")
        XCTAssertEqual(Set(item.changedValues().keys), ["count"], "persistent defaults are a new object's changed values")
        // A required value left out fails validation, as for any object.
        XCTAssertThrowsError(try stack.context.save()) { error in XCTAssertTrue("\(error)".contains("title"), "\(error)") }
        let fresh = stack.context.insertNewObject(forEntityName: "Item")
        fresh.setAttribute("Milk", atSlot: title)
        fresh.setAttribute(Int32(2), atSlot: count)
        XCTAssertFalse(fresh.rowValues.isEmpty)
        stack.context.delete(item)
        try stack.context.save()
        let items = try stack.fetch("Item", in: stack.newContext())
        XCTAssertEqual(items.map { $0.value(forKey: "title") as? String }, ["Milk"])
        XCTAssertEqual(items.first?.value(forKey: "count") as? Int32, 2)

        // Values set before the object joins a context are kept; to-many entities keep slots.
        let loose = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: nil)
        loose.setValue("Eggs", forKey: "title")
        stack.context.insert(loose)
        XCTAssertTrue(loose.rowValues.isEmpty)
        XCTAssertEqual(loose.value(forKey: "title") as? String, "Eggs")
        let box = stack.context.insertNewObject(forEntityName: "Box")
        XCTAssertTrue(box.rowValues.isEmpty)
        box.setValue("B", forKey: "name")
        try stack.context.save()
        XCTAssertEqual(try stack.fetch("Item", in: stack.newContext()).count, 2)
    }

    // MARK: Old values of the current event

    func testTypedSetsRecordTheValuesBeforeTheEventFromTheRow() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        let context = try XCTUnwrap(contact.managedObjectContext)
        contact.setAttribute("Augusta", atSlot: slot("name", of: contact))
        contact.setAttribute("Countess", atSlot: slot("name", of: contact))
        contact.setAttribute(Int32(37), atSlot: slot("age", of: contact))
        XCTAssertFalse(contact.rowValues.isEmpty, "typed sets write into the row")
        var event = contact.changedValuesForCurrentEvent()
        XCTAssertEqual(Set(event.keys), ["name", "age"])
        XCTAssertEqual(event["name"] as? String, "Ada", "the value before the event, not before the last set")
        XCTAssertEqual(event["age"] as? Int32, 36)
        context.processPendingChanges()
        XCTAssertTrue(contact.changedValuesForCurrentEvent().isEmpty)
        contact.setAttribute(nil as String?, atSlot: slot("email", of: contact))
        contact.setAttribute("Lovelace", atSlot: slot("name", of: contact))
        event = contact.changedValuesForCurrentEvent()
        XCTAssertEqual(Set(event.keys), ["email", "name"])
        XCTAssertEqual(event["email"] as? String, "ada@example.com")
        XCTAssertEqual(event["name"] as? String, "Countess", "the previous event's last value")
        XCTAssertEqual(contact.changedValues()["name"] as? String, "Lovelace")
        context.processPendingChanges()
        contact.setAttribute(nil as String?, atSlot: slot("name", of: contact))
        XCTAssertTrue(contact.changedValuesForCurrentEvent()["email"] == nil)
        XCTAssertEqual(contact.changedValuesForCurrentEvent()["name"] as? String, "Lovelace")
    }

    func testTypedAndGenericSetsInOneEventKeepEachOldValue() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        contact.setAttribute("Augusta", atSlot: slot("name", of: contact))
        // A generic set unpacks the row into slots; later sets record through the slots.
        contact.setValue("ada@lovelace.org", forKey: "email")
        contact.setValue("Countess", forKey: "name")
        contact.setAttribute(Int32(37), atSlot: slot("age", of: contact))
        let event = contact.changedValuesForCurrentEvent()
        XCTAssertEqual(Set(event.keys), ["name", "email", "age"])
        XCTAssertEqual(event["name"] as? String, "Ada")
        XCTAssertEqual(event["email"] as? String, "ada@example.com")
        XCTAssertEqual(event["age"] as? Int32, 36)
    }

    func testARowReplacedDuringTheEventGivesLaterSetsTheirOldValues() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        let context = try XCTUnwrap(contact.managedObjectContext)
        contact.setAttribute("Augusta", atSlot: slot("name", of: contact))
        // Another context saves a new age; refreshing the object drops its change and loads
        // the new row, which it reads its values from again.
        let writer = stack.newContext()
        let same = try writer.existingObject(with: contact.objectID)
        same.setValue(Int32(40), forKey: "age")
        try writer.save()
        context.refresh(contact, mergeChanges: false)
        XCTAssertEqual(contact.value(forKey: "age") as? Int32, 40)
        XCTAssertFalse(contact.rowValues.isEmpty)
        contact.setAttribute(Int32(41), atSlot: slot("age", of: contact))
        let event = contact.changedValuesForCurrentEvent()
        XCTAssertEqual(event["name"] as? String, "Ada", "recorded before the refresh")
        XCTAssertEqual(event["age"] as? Int32, 40, "the value just before the set, from the new row")
    }

    func testUndoOfTypedSetsRestoresTheRowValues() throws {
        let (stack, contact) = try fetchedContact()
        defer { withExtendedLifetime(stack) {} }
        let context = try XCTUnwrap(contact.managedObjectContext)
        contact.setAttribute("Augusta", atSlot: slot("name", of: contact))
        contact.setAttribute(nil as Date?, atSlot: slot("born", of: contact))
        context.processPendingChanges()
        context.undoManager!.undo()
        XCTAssertEqual(contact.value(forKey: "name") as? String, "Ada")
        XCTAssertEqual(contact.value(forKey: "born") as? Date, born)
        XCTAssertFalse(contact.hasPersistentChangedValues)
    }
}
