using System.Text.Json;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// A load plan as one JSON line, the controller's to a generator's: what <c>perflab load</c> parsed from its arguments or
/// what a run built from an experiment, so a generator runs the very plan the controller would have run (its body's
/// bytes included). A model travels as its kind and its own fields, read back as its case of <see cref="LoadModel.Cases"/>;
/// a response check as the texts it was parsed from. The controller's callbacks (a target's settling, the window probe)
/// stay with the controller.
/// </summary>
internal static class PlanWire
{
    private static readonly JsonSerializerOptions Options = new(LoadSummary.JsonOptions) { WriteIndented = false };

    public static string Write(LoadPlan plan) => JsonSerializer.Serialize(new WirePlan([.. plan.Scenarios.Select(WriteScenario)],
        plan.Duration, plan.Warmup, plan.Timeout, plan.Http2, plan.AllowRemote, plan.ConnectTimeout, plan.WarmupUntilSteady), Options);

    private static WireScenario WriteScenario(ScenarioPlan s) =>
        new(s.Name, s.Model.Kind, JsonSerializer.SerializeToElement(s.Model, s.Model.GetType(), Options), s.Feed, s.MaxRequests,
            s.Request.Method, s.Request.Headers, s.Request.Body, s.Request.Check?.Statuses?.Text,
            s.Request.Check?.Json.Select(j => j.Text).ToList());

    public static LoadPlan Read(string line)
    {
        WirePlan wire;
        try
        {
            wire = JsonSerializer.Deserialize<WirePlan>(line, Options) ?? throw new JsonException("an empty plan");
        }
        catch (JsonException ex)
        {
            throw new PerfLabException($"expected the load plan as one JSON line: {ex.Message}", ExitCode.Usage, ex);
        }
        return new LoadPlan([.. wire.Scenarios.Select(ReadScenario)], wire.Duration, wire.Warmup, wire.Timeout)
        {
            Http2 = wire.Http2,
            AllowRemote = wire.AllowRemote,
            ConnectTimeout = wire.ConnectTimeout,
            WarmupUntilSteady = wire.WarmupUntilSteady,
        };
    }

    private static ScenarioPlan ReadScenario(WireScenario s)
    {
        var model = LoadModel.Cases.FirstOrDefault(c => c.Kind == s.Kind)
            ?? throw new PerfLabException($"'{s.Kind}' is not a load model (one of {string.Join(", ", LoadModel.Kinds)}).", ExitCode.Usage);
        var check = s.Statuses is null && s.Json is not { Count: > 0 }
            ? null
            : new ResponseCheck(s.Statuses is null ? null : StatusSet.Parse([s.Statuses]),
                [.. (s.Json ?? []).Select(JsonExpectation.Parse)]);
        var plainGet = s.Method == RequestSpec.Get.Method && s.Headers.Count == 0 && s.Body is null && check is null;
        return new ScenarioPlan(s.Name, (LoadModel)s.Model.Deserialize(model.Type, Options)!, s.Feed)
        {
            MaxRequests = s.MaxRequests,
            // A plain GET stays the engine's own (it is described as none).
            Request = plainGet ? RequestSpec.Get : new RequestSpec { Method = s.Method, Headers = s.Headers, Body = s.Body, Check = check },
        };
    }

    private sealed record WirePlan(IReadOnlyList<WireScenario> Scenarios, TimeSpan Duration, TimeSpan Warmup, TimeSpan Timeout, bool Http2,
        bool AllowRemote, TimeSpan ConnectTimeout, bool WarmupUntilSteady);

    private sealed record WireScenario(string Name, string Kind, JsonElement Model, RequestFeed Feed, long? MaxRequests, string Method,
        IReadOnlyList<KeyValuePair<string, string>> Headers, byte[]? Body, string? Statuses, IReadOnlyList<string>? Json);
}
