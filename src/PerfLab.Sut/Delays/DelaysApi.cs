using Microsoft.AspNetCore.Http.HttpResults;
using PerfLab.Sut.Data;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Delays;

/// <summary>
/// The blocking-versus-awaiting endpoints of seeds 001 (Thread.Sleep / Task.Delay), 003 (a database wait through
/// pg_sleep) and 004 (Task.Delay(...).Wait()).
/// </summary>
public static class DelaysApi
{
    private const int MaxMs = 10_000;

    public static IEndpointRouteBuilder MapDelays(this IEndpointRouteBuilder app)
    {
        app.MapGet("/weatherforecast-sync", Results<Ok<WeatherForecast[]>, ValidationProblem> (HttpContext context) =>
        {
            if (!TryGetMs(context, 150, out var ms, out var problem))
            {
                return problem;
            }
            Thread.Sleep(ms);
            return TypedResults.Ok(WeatherForecast.Sample());
        });

        app.MapGet("/weatherforecast-async", async Task<Results<Ok<WeatherForecast[]>, ValidationProblem>> (HttpContext context) =>
        {
            if (!TryGetMs(context, 150, out var ms, out var problem))
            {
                return problem;
            }
            await Task.Delay(ms, context.RequestAborted);
            return TypedResults.Ok(WeatherForecast.Sample());
        });

        app.MapGet("/diagnostics/sync",
            Results<Ok<DelayResult>, ValidationProblem> (HttpContext context, IAdventureWorksQueries queries, DatabaseSettings settings) =>
        {
            if (!TryGetMs(context, 500, out var ms, out var problem))
            {
                return problem;
            }
            // Blocking all the way: the async=false run completes inside the call, on this thread.
            SleepInDatabaseAsync(queries, settings, ms, async: false, context.RequestAborted).GetAwaiter().GetResult();
            return TypedResults.Ok(new DelayResult("sync", ms));
        });

        app.MapGet("/diagnostics/async", async Task<Results<Ok<DelayResult>, ValidationProblem>> (HttpContext context,
            IAdventureWorksQueries queries, DatabaseSettings settings) =>
        {
            if (!TryGetMs(context, 500, out var ms, out var problem))
            {
                return problem;
            }
            await SleepInDatabaseAsync(queries, settings, ms, async: true, context.RequestAborted);
            return TypedResults.Ok(new DelayResult("async", ms));
        });

        app.MapGet("/diagnostics/sync-over-async", Results<Ok<DelayResult>, ValidationProblem> (HttpContext context) =>
        {
            if (!TryGetMs(context, 200, out var ms, out var problem))
            {
                return problem;
            }
            // Seed 004's mistake, kept on purpose: block a pool thread on a task instead of awaiting it.
            Task.Delay(ms).Wait();
            return TypedResults.Ok(new DelayResult("sync-over-async", ms));
        });

        return app;
    }

    // pg_sleep for ms milliseconds, with a command timeout that outlasts it.
    private static Task SleepInDatabaseAsync(
        IAdventureWorksQueries queries, DatabaseSettings settings, int ms, bool async, CancellationToken ct)
    {
        settings.EnsureConfigured();
        return queries.SleepAsync(ms / 1000.0, settings.CommandTimeoutSeconds + ms / 1000, async, ct);
    }

    private static bool TryGetMs(HttpContext context, int fallback, out int ms, out ValidationProblem problem)
    {
        var ok = QueryParameters.TryGetInt(context, "ms", 0, MaxMs, fallback, out ms, out var result);
        problem = result as ValidationProblem ?? TypedResults.ValidationProblem(new Dictionary<string, string[]>());
        return ok;
    }
}

public sealed record DelayResult(string Mode, int Ms);

public sealed record WeatherForecast(DateOnly Date, int TemperatureC, string Summary)
{
    private static readonly string[] Summaries =
        ["Freezing", "Bracing", "Chilly", "Cool", "Mild", "Warm", "Balmy", "Hot", "Sweltering", "Scorching"];

    public int TemperatureF => 32 + (int)(TemperatureC / 0.5556);

    public static WeatherForecast[] Sample()
    {
        var today = DateOnly.FromDateTime(DateTime.UtcNow);
        return Enumerable.Range(1, 5)
            .Select(i => new WeatherForecast(today.AddDays(i), Random.Shared.Next(-20, 55),
                Summaries[Random.Shared.Next(Summaries.Length)]))
            .ToArray();
    }
}
