using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>A scenario's feed made concrete: its URLs, and the values and placeholder name a body fills from them.</summary>
internal sealed record ResolvedFeed(Uri[] Uris, IReadOnlyList<string>? Values, string? Placeholder);

/// <summary>Turns a <see cref="RequestFeed"/> into the concrete URLs of a scenario, once, before the run.</summary>
internal static partial class FeedLoader
{
    public static async Task<ResolvedFeed> ResolveAsync(RequestFeed feed, RequestSpec request, bool allowRemote, TimeSpan timeout,
        CancellationToken ct)
    {
        var template = feed.UrlTemplate;
        var open = template.IndexOf('{', StringComparison.Ordinal);
        var close = open < 0 ? -1 : template.IndexOf('}', open);
        var values = await LoadValuesAsync(feed, allowRemote, timeout, ct).ConfigureAwait(false);
        var placeholder = open >= 0 && close >= 0 ? template[(open + 1)..close] : feed.Placeholder ?? BodyPlaceholder(request.Body);
        var inBody = placeholder is not null && request.Body is { } body
            && body.AsSpan().IndexOf(System.Text.Encoding.UTF8.GetBytes("{" + placeholder + "}")) >= 0;

        if (open < 0 || close < 0)
        {
            if (values is not null && !inBody)
            {
                throw new PerfLabException($"values were given for '{template}', which has no {{placeholder}} to fill (nor has the body).",
                    ExitCode.Usage);
            }
            if (inBody && (values is null || values.Count == 0))
            {
                throw new PerfLabException($"the body has the placeholder {{{placeholder}}} but no values fill it (give --values, "
                    + $"--values-file or --values-url).", ExitCode.Usage);
            }
            var single = TargetGuard.ParseTarget(template, "url");
            TargetGuard.EnsureAllowed(single, allowRemote);
            return new ResolvedFeed([single], inBody ? values : null, inBody ? placeholder : null);
        }
        if (values is null || values.Count == 0)
        {
            throw new PerfLabException($"'{template}' has a placeholder but no values to fill it (give --values, --values-file or "
                + $"--values-url).", ExitCode.Usage);
        }

        var prefix = template[..open];
        var suffix = template[(close + 1)..];
        var uris = new Uri[values.Count];
        for (var i = 0; i < values.Count; i++)
        {
            uris[i] = TargetGuard.ParseTarget(prefix + Uri.EscapeDataString(values[i]) + suffix, "url");
            TargetGuard.EnsureAllowed(uris[i], allowRemote);
        }
        return new ResolvedFeed(uris, values, placeholder);
    }

    /// <summary>
    /// The plan with every feed's values fetched now and written inline, so the runs of it that follow (an alternating
    /// block's warm-up and slots) neither ask the app for them again nor start from a different list.
    /// </summary>
    public static async Task<LoadPlan> WithValuesFetchedAsync(LoadPlan plan, CancellationToken ct)
    {
        var scenarios = new List<ScenarioPlan>(plan.Scenarios.Count);
        foreach (var scenario in plan.Scenarios)
        {
            var feed = scenario.Feed;
            if (feed.Values is null && (feed.ValuesFile is not null || feed.ValuesUrl is not null))
            {
                var values = await LoadValuesAsync(feed, plan.AllowRemote, plan.Timeout, ct).ConfigureAwait(false);
                feed = feed with { Values = values, ValuesFile = null, ValuesUrl = null };
            }
            scenarios.Add(scenario with { Feed = feed });
        }
        return plan with { Scenarios = scenarios };
    }

    /// <summary>
    /// The first <c>{name}</c> in a body, a name being letters, digits and underscores: JSON's own braces never
    /// enclose a bare word, so <c>{"id": {id}}</c> has exactly one placeholder.
    /// </summary>
    public static string? BodyPlaceholder(byte[]? body) =>
        body is null
            ? null
            : PlaceholderPattern().Match(System.Text.Encoding.UTF8.GetString(body)) is { Success: true } m ? m.Groups[1].Value : null;

    [System.Text.RegularExpressions.GeneratedRegex(@"\{([A-Za-z_][A-Za-z0-9_]*)\}")]
    private static partial System.Text.RegularExpressions.Regex PlaceholderPattern();

    private static readonly TimeSpan ValuesFetchWait = TimeSpan.FromSeconds(90);

    private static async Task<IReadOnlyList<string>?> LoadValuesAsync(RequestFeed feed, bool allowRemote, TimeSpan timeout,
        CancellationToken ct)
    {
        if (feed.Values is not null)
        {
            return feed.Values;
        }
        if (feed.ValuesFile is not null)
        {
            if (!File.Exists(feed.ValuesFile))
            {
                throw new PerfLabException($"values file '{feed.ValuesFile}' does not exist.", ExitCode.Usage);
            }
            var text = await File.ReadAllTextAsync(feed.ValuesFile, ct).ConfigureAwait(false);
            return text.TrimStart().StartsWith('[')
                ? ParseJsonArray(text, feed.ValuesFile)
                : [.. text.Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0)];
        }
        if (feed.ValuesUrl is not null)
        {
            var uri = TargetGuard.ParseTarget(feed.ValuesUrl, "values url");
            TargetGuard.EnsureAllowed(uri, allowRemote);
            // Fetched once before the load, often from a cold app (its first database query still compiling) while other
            // variants' SUTs start beside it: not a measured request, so it waits longer than one (a busy 2-core machine
            // took over 30 s to list the orders' ids from four cold SUTs at once, which failed that whole block).
            timeout = timeout > ValuesFetchWait ? timeout : ValuesFetchWait;
            using var client = new HttpClient { Timeout = timeout };
            try
            {
                var json = await client.GetStringAsync(uri, ct).ConfigureAwait(false);
                return ParseJsonArray(json, feed.ValuesUrl);
            }
            catch (HttpRequestException ex)
            {
                throw new PerfLabException($"cannot fetch values from {feed.ValuesUrl}: {ex.Message}", ExitCode.Unreachable, ex);
            }
            catch (TaskCanceledException ex) when (!ct.IsCancellationRequested)
            {
                throw new PerfLabException($"cannot fetch values from {feed.ValuesUrl}: no answer within {timeout.TotalSeconds:0.#} s.",
                    ExitCode.Unreachable, ex);
            }
        }
        return null;
    }

    private static List<string> ParseJsonArray(string json, string source)
    {
        try
        {
            using var doc = JsonDocument.Parse(json);
            if (doc.RootElement.ValueKind != JsonValueKind.Array)
            {
                throw new PerfLabException($"values from {source} are not a JSON array.", ExitCode.Usage);
            }
            return [.. doc.RootElement.EnumerateArray().Select(e => e.ValueKind == JsonValueKind.String ? e.GetString()! : e.GetRawText())];
        }
        catch (JsonException ex)
        {
            throw new PerfLabException($"values from {source} are not valid JSON: {ex.Message}", ExitCode.Usage, ex);
        }
    }
}
