using PerfLab.Experiments.Definitions;
using PerfLab.Load;

namespace PerfLab.Experiments.Running;

/// <summary>Turns an experiment's scenarios, for one variant and profile, into the load engine's plan.</summary>
public static class ScenarioPlans
{
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    public static LoadPlan BuildPlan(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile, Uri baseAddress)
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
            return new ScenarioPlan(s.Name, s.Model.ForProfile(profile.Shape), feed) { Request = WithVars(s.Request, variant) };
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
