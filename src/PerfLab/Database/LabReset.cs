namespace PerfLab.Database;

/// <summary>
/// The lab's database settled once (<see cref="LabDatabase.SettleAsync"/>) and reset before each block
/// (<see cref="LabDatabaseReset.ResetAsync"/>), both as the cluster's superuser: here from the connection string
/// (<see cref="LocalLabReset"/>), or on a db host by its role, where the superuser is accepted over loopback alone.
/// </summary>
public interface ILabReset
{
    /// <summary>The settings in force; null settings and the reason when the server is not the lab's.</summary>
    Task<(LabDatabaseSettings? Settings, string? NotTheLabs)> SettleAsync(CancellationToken ct);

    /// <exception cref="Common.PerfLabException">The reset could not be done.</exception>
    Task<LabResetResult> ResetAsync(LabDatabaseSettings settings, CancellationToken ct);
}

/// <summary>The lab's database on a server this machine reaches as its superuser.</summary>
public sealed class LocalLabReset(string connectionString) : ILabReset
{
    public Task<(LabDatabaseSettings? Settings, string? NotTheLabs)> SettleAsync(CancellationToken ct) =>
        LabDatabase.SettleAsync(connectionString, ct);

    public Task<LabResetResult> ResetAsync(LabDatabaseSettings settings, CancellationToken ct) =>
        LabDatabaseReset.ResetAsync(connectionString, settings, ct);
}
