using Microsoft.EntityFrameworkCore;
using Npgsql;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Data;

/// <summary>
/// Runs each query the way the active DataAccess variant asks: awaited, blocking (ToList/FirstOrDefault/Count),
/// or blocking on the async call with <c>.Result</c> (the sync-over-async anti-pattern of seed 004).
/// </summary>
public sealed class DataAccess(EffectiveVariants variants, DatabaseSettings settings)
{
    public Task<T> QueryAsync<T>(Func<CancellationToken, Task<T>> asyncQuery, Func<T> syncQuery, CancellationToken ct)
    {
        settings.EnsureConfigured();
        return variants.DataAccess switch
        {
            DataAccessMode.Sync => Task.FromResult(syncQuery()),
            DataAccessMode.SyncOverAsync => Task.FromResult(asyncQuery(ct).Result),
            _ => asyncQuery(ct),
        };
    }
}

/// <summary>Where the database is and how long a command may take.</summary>
public sealed record DatabaseSettings(string? ConnectionString, int CommandTimeoutSeconds)
{
    public const string ConnectionStringName = "AdventureWorks";

    public void EnsureConfigured()
    {
        if (string.IsNullOrWhiteSpace(ConnectionString))
        {
            throw new DatabaseNotConfiguredException();
        }
    }
}

public sealed class DatabaseNotConfiguredException()
    : Exception($"ConnectionStrings:{DatabaseSettings.ConnectionStringName} is not set; start the SUT with `perflab sut start`.");

public static class DataRegistration
{
    public static DatabaseSettings AddAdventureWorks(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        var raw = builder.Configuration.GetConnectionString(DatabaseSettings.ConnectionStringName);
        string? connectionString = null;
        if (!string.IsNullOrWhiteSpace(raw))
        {
            // Bound every wait so that a database that went away answers 503 in time instead of hanging.
            var csb = new NpgsqlConnectionStringBuilder(raw);
            if (!raw.Contains("Timeout", StringComparison.OrdinalIgnoreCase))
            {
                csb.Timeout = variants.CommandTimeoutSeconds;
                csb.CommandTimeout = variants.CommandTimeoutSeconds;
            }
            connectionString = csb.ConnectionString;
        }
        var settings = new DatabaseSettings(connectionString, variants.CommandTimeoutSeconds);
        builder.Services.AddSingleton(settings);
        builder.Services.AddSingleton<DataAccess>();
        builder.Services.AddDbContext<AdventureWorks>(options =>
            options.UseNpgsql(connectionString ?? "Host=unconfigured", npgsql => npgsql.CommandTimeout(variants.CommandTimeoutSeconds)));
        return settings;
    }
}
