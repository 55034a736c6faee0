import Foundation

/// A resource whose model a ``MemoryCacheStore`` may keep with the stored response it was made
/// from, and hand to the next fetch of an equal resource that the same stored response answers.
///
/// A fresh hit for such a resource costs no parsing: the service validates the response as
/// always (``NetworkResourceType/validate(_:data:)`` runs on every hit) and then takes the model
/// the entry kept, instead of running ``DataResourceType/model(from:)`` on the same bytes again.
///
/// ```swift
/// struct Cities: JSONDecodableResourceType, NetworkResourceType, ReusableModelResource {
///     typealias Model = [City]
///     let url: URL
/// }
/// ```
///
/// Adopt it when the model depends on nothing but the resource's value and the response: its
/// parsing reads no clock, counter or other state that changes between fetches, and the model is
/// a value (or immutable), since every fetch it answers shares it. Equality is the
/// resource's `==`: two resources that parse the same bytes differently must not be equal.
///
/// What is reused, and when:
/// - only a response that ``CachingTransport`` hands over whole from a ``MemoryCacheStore``
///   (a fresh hit, or a stale response served while it is revalidated). A response from the
///   network, one read from a ``DiskCacheStore``, and one revalidated by a `304` are parsed.
/// - only a model that parsing produced; a failure is not kept, so the next hit parses again.
/// - an entry keeps the models of up to ``MemoryCacheStore/modelsKeptPerEntry`` unequal
///   resources, the least recently used replaced first. They go when the entry is replaced,
///   removed or evicted, and are not counted against ``MemoryCacheStore/byteLimit``.
public protocol ReusableModelResource: ResourceType, Hashable {}

/// The models made of one stored response, by the resource that made each, most recently used
/// last; a resource's model is kept only while the response stays stored.
final class KeptModels: @unchecked Sendable {
    /// The most models kept.
    let limit: Int
    // `lock` guards `models`. Keys are resources (`Sendable`), values their models (`Sendable`).
    private let lock = NSLock()
    private var models: [(resource: AnyHashable, model: any Sendable)] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// The model kept for a resource equal to `resource`, made the most recently used.
    func model(for resource: AnyHashable) -> (any Sendable)? {
        lock.withLock {
            guard let index = models.firstIndex(where: { $0.resource == resource }) else { return nil }
            let entry = models.remove(at: index)
            models.append(entry)
            return entry.model
        }
    }

    /// Keeps `model` for `resource`, replacing the least recently used model when ``limit`` are
    /// kept already.
    func keep(_ model: any Sendable, for resource: AnyHashable) {
        lock.withLock {
            models.removeAll { $0.resource == resource }
            guard limit > 0 else { return }
            if models.count >= limit { models.removeFirst(models.count - limit + 1) }
            models.append((resource, model))
        }
    }
}

extension ResourceService {
    /// The model `resource` makes of `data`: the one kept for an equal resource when `head` is
    /// a stored response that keeps models and the resource adopts ``ReusableModelResource``,
    /// else parsed (and kept, when `head` keeps models).
    static func reusableResult(
        from data: Data,
        head: ResponseHead,
        for resource: Resource
    ) -> Result<Resource.Model, ResourceError> {
        guard let kept = head.keptModels, let reusable = resource as? any ReusableModelResource else {
            return resource.result(from: data, statusCode: head.statusCode)
        }
        let key = AnyHashable(reusable)
        if let model = kept.model(for: key) as? Resource.Model { return .success(model) }
        let result = resource.result(from: data, statusCode: head.statusCode)
        if case .success(let model) = result { kept.keep(model, for: key) }
        return result
    }
}
