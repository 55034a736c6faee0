import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The path of a fetch through a ``ResourcePipeline`` with adapters or monitors. A service
/// whose pipeline has neither never comes here.
extension ResourceService {
    /// The completion-handler fetch through `pipeline`: the `async` one in a task, its outcome
    /// delivered on `callbackQueue`. Cancelling the handle cancels the task.
    func fetch(
        _ resource: Resource,
        through pipeline: ResourcePipeline,
        callbackQueue: DispatchQueue,
        completion: @escaping @Sendable (Result<Resource.Model, ResourceError>) -> Void
    ) -> any Cancellable {
        let task = Task {
            let result = await fetch(resource, through: pipeline)
            callbackQueue.async { completion(result) }
        }
        return TaskCancellable(task)
    }

    /// Fetches `resource` through `pipeline`'s hooks: build, then attempts (adapt, authenticate,
    /// send, retry or replay), then validate and parse, telling the monitors of each step and,
    /// exactly once, of the outcome.
    func fetch(_ resource: Resource, through pipeline: ResourcePipeline) async -> Result<Resource.Model, ResourceError> {
        let fetch = PipelineFetch(pipeline: pipeline, resourceType: Resource.self)
        let result = await FetchEvent.Context.$current.withValue(fetch.context) {
            await run(resource, as: fetch)
        }
        fetch.finished(with: result)
        return result
    }

    private func run(_ resource: Resource, as fetch: PipelineFetch) async -> Result<Resource.Model, ResourceError> {
        if Task.isCancelled { return .failure(.cancelled) }
        let request: URLRequest
        do {
            request = try resource.urlRequest()
        } catch {
            return .failure(error)
        }
        fetch.built(request)
        let pipeline = fetch.pipeline
        let options = resource.transferOptions(self.options)
        let plan = PipelineFetch.Plan(
            adapters: resource.usesPipelineAdapters ? pipeline.adapters : [],
            authentication: resource.usesPipelineAuthenticator
                ? (resource.requiresCredential ? pipeline.authentication : pipeline.optionalAuthentication)
                : nil,
            retryPolicy: resource.retryPolicy(pipeline.retryPolicy),
            options: options
        )
        let answer: PipelineFetch.Answer
        switch await fetch.transfer(request, plan: plan) {
        case .success(let success):
            answer = success
        case .failure(let error):
            return .failure(error)
        }
        return fetch.makeModel {
            Self.process(.success((answer.data, answer.response)), for: resource, options: options)
        }
    }
}
