using PerfLab.Apps;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;

namespace PerfLab.Experiments.Running;

/// <summary>Turns an experiment's scenarios, for one variant and profile, into the load engine's plan.</summary>
public static class ScenarioPlans
{
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    /// <summary>The plan against a started app: its address, and the headers its requests must carry.</summary>
    public static LoadPlan BuildPlan(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile,
        IRunningApp sut) => BuildPlan(experiment, variant, profile, sut.BaseAddress, sut.RequestHeaders);

    /// <param name="headers">What every request to the app carries besides the scenario's own (<c>IRunningApp.RequestHeaders</c>).</param>
    public static LoadPlan BuildPlan(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile, Uri baseAddress,
        IReadOnlyList<KeyValuePair<string, string>>? headers = null)
    {
        var scenarios = experiment.Scenarios.Select(s =>
        {
            var path = s.Url;
            foreach (var (name, value) in variant.Vars)
            {
                path = path.Replace("${" + name + "}", value, StringComparison.Ordinal);
            }
            var url = new Uri(baseAddress, path).ToString();
            // Uri escapes braces; the feed's placeholder must stay as written.
            url = url.Replace("%7B", "{", StringComparison.Ordinal).Replace("%7D", "}", StringComparison.Ordinal);
            var feed = new RequestFeed(url);
            if (s.Feed is not null)
            {
                feed = feed with
                {
                    ValuesUrl = new Uri(baseAddress, s.Feed.FromUrl).ToString(),
                    Order = s.Feed.Random ? FeedOrder.Random : FeedOrder.Circular,
                    Placeholder = s.Feed.Placeholder,
                };
            }
            var request = WithVars(s.Request, variant);
            return new ScenarioPlan(s.Name, s.Model.ForProfile(profile.Shape), feed)
            {
                Request = headers is { Count: > 0 } ? request with { Headers = [.. request.Headers, .. headers] } : request,
            };
        }).ToList();
        return new LoadPlan(scenarios, profile.Duration, profile.Warmup, RequestTimeout)
        {
            WarmupUntilSteady = profile.WarmupUntilSteady,
            // The base address is that of an app perflab started: on loopback, or on the hosts file's app host.
            AllowRemote = !baseAddress.IsLoopback,
        };
    }

    /// <summary>The variant's ${name} values filled into the body and header values, as into the URL.</summary>
    private static RequestSpec WithVars(RequestSpec request, VariantDefinition variant)
    {
        if (variant.Vars.Count == 0 || ReferenceEquals(request, RequestSpec.Get))
        {
            return request;
        }
        string Fill(string text) =>
            variant.Vars.Aggregate(text, (t, v) => t.Replace("${" + v.Key + "}", v.Value, StringComparison.Ordinal));
        var body = request.Body is { } bytes && System.Text.Encoding.UTF8.GetString(bytes) is var text
                && text.Contains("${", StringComparison.Ordinal)
            ? RequestSpec.Utf8(Fill(text))
            : request.Body;
        return request with
        {
            Body = body,
            Headers = [.. request.Headers.Select(h => new KeyValuePair<string, string>(h.Key, Fill(h.Value)))],
        };
    }
}
