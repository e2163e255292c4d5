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

#if NET10_0_OR_GREATER
    /// <summary>Why this build cannot reach PostgreSQL at all, or null when it can.</summary>
    public static string? UnavailableReason => null;
#else
    // The package source holds Npgsql 9.0.3 and 10.0.0 and the EF Core providers 8.0.0 and 10.0.0 only: the 8.0.0
    // provider fails at its first query against Npgsql 9 (TypeLoadException), and there is no provider 9.x.
    public static string? UnavailableReason =>
        "data access is unavailable in this framework build: Npgsql.EntityFrameworkCore.PostgreSQL 8.0.0 needs Npgsql 8.x " +
        "and 9.x of the provider is missing from the package source; only the net10.0 build reads the database.";
#endif

    public void EnsureConfigured()
    {
        if (UnavailableReason is not null)
        {
            throw new DatabaseNotConfiguredException(UnavailableReason);
        }
        if (string.IsNullOrWhiteSpace(ConnectionString))
        {
            throw new DatabaseNotConfiguredException($"ConnectionStrings:{ConnectionStringName} is not set; start the SUT with `perflab sut start`.");
        }
    }
}

public sealed class DatabaseNotConfiguredException(string message) : Exception(message);

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
