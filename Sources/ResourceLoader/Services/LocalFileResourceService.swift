import Foundation

/// Loads resources from local files: bundled fixtures, caches, offline data.
///
/// Any ``DataResourceType`` can be loaded; the service is told which file holds each resource.
/// Reading and parsing run on a global queue.
///
/// ```swift
/// let service = LocalFileResourceService<CityList>(fileURL: bundledCitiesURL)
/// let cities = try await service.fetch(CityList())
/// ```
///
/// A missing file fails with ``ResourceError/transport(_:underlying:)`` and code
/// `.fileDoesNotExist`; any other read error with `.cannotOpenFile`.
public struct LocalFileResourceService<Resource: DataResourceType>: ResourceServiceType {
    private let fileURL: @Sendable (Resource) -> URL

    /// Creates a service that reads each resource from the file `fileURL` returns for it.
    public init(fileURL: @escaping @Sendable (Resource) -> URL) {
        self.fileURL = fileURL
    }

    /// Creates a service that reads every resource from one file.
    public init(fileURL: URL) {
        self.init { _ in fileURL }
    }

    /// Reads and parses the resource's file, delivering the outcome exactly once on
    /// `callbackQueue`.
    @discardableResult
    public func fetch(
        _ resource: Resource,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        let pending = PendingFetch(callbackQueue: callbackQueue, completion: completion)
        let url = fileURL(resource)
        DispatchQueue.global().async {
            guard !pending.isFinished else { return }
            pending.finish(Self.load(resource, from: url))
        }
        return pending
    }

    static func load(_ resource: Resource, from url: URL) -> Result<Resource.Model, ResourceError> {
        guard url.isFileURL else {
            return .failure(.invalidRequest(reason: "\(url.absoluteString) is not a file URL"))
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: url.path)
            return .failure(.transport(missing ? .fileDoesNotExist : .cannotOpenFile, underlying: error))
        }
        return resource.result(from: data)
    }
}
