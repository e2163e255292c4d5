using System.Text.Json;
using PerfLab.Common;
using PerfLab.Database;

namespace PerfLab.Hosts;

/// <summary>
/// The lab's database on a db host settled and reset by its role there (<c>db-settle</c>, <c>db-reset</c>, each
/// answered with one JSON line of the same kind): the superuser those need is accepted over that host's loopback alone,
/// never from the controller. The role keeps the settings it settled; a reset it could not do comes back as its message.
/// </summary>
internal sealed class RemoteLabReset(RoleSession session) : ILabReset
{
    public const string Settle = "db-settle";
    public const string Reset = "db-reset";

    // A CHECKPOINT and a prewarm of the lab's tables; seconds on a quiet host, far less than this.
    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromMinutes(2);

    public async Task<(LabDatabaseSettings? Settings, string? NotTheLabs)> SettleAsync(CancellationToken ct)
    {
        var answer = await AskAsync(Settle, ct);
        return (answer.Settings, answer.NotTheLabs);
    }

    public async Task<LabResetResult> ResetAsync(LabDatabaseSettings settings, CancellationToken ct) =>
        (await AskAsync(Reset, ct)).Result
            ?? throw new PerfLabException($"{session.Host}: the db role sent no reset.", ExitCode.Failed);

    private async Task<Answer> AskAsync(string request, CancellationToken ct)
    {
        // Ask blocks until the answer: a thread of the pool waits, not the block's loop.
        var json = await Task.Run(() => session.Ask(request, AnswerTimeout), ct)
            ?? throw new PerfLabException(RunDatabase.LostOf(session) is { } lost
                ? lost + "."
                : $"{session.Host}: the db role did not answer '{request}' (its session ended, or "
                    + $"{AnswerTimeout.TotalMinutes:0} min passed).", ExitCode.Environment);
        var answer = JsonSerializer.Deserialize<Answer>(json, RoleLines.Json)!;
        return answer.Failure is { } failure
            ? throw new PerfLabException($"{session.Host}: {failure}", ExitCode.Environment)
            : answer;
    }

    /// <summary>One answer of the role: what it settled or reset, or why it could not.</summary>
    internal sealed record Answer(LabDatabaseSettings? Settings = null, string? NotTheLabs = null, LabResetResult? Result = null,
        string? Failure = null);

    /// <summary>
    /// The db role's end: answers <see cref="Settle"/> and <see cref="Reset"/> as the cluster's superuser on this host
    /// (<paramref name="connectionString"/>, over loopback).
    /// </summary>
    internal sealed class OnHost(string connectionString, RoleLines lines)
    {
        private LabDatabaseSettings? _settings;

        public async Task HandleAsync(RoleAsk ask, CancellationToken ct)
        {
            if (ask.Kind is not (Settle or Reset))
            {
                return;
            }
            Answer answer;
            try
            {
                if (ask.Kind == Settle)
                {
                    var (settings, notTheLabs) = await LabDatabase.SettleAsync(connectionString, ct);
                    _settings = settings;
                    answer = new Answer(settings, notTheLabs);
                }
                else
                {
                    answer = _settings is null
                        ? new Answer(Failure: "the lab's database was not settled before its reset")
                        : new Answer(Result: await LabDatabaseReset.ResetAsync(connectionString, _settings, ct));
                }
            }
            catch (PerfLabException ex)
            {
                answer = new Answer(Failure: ex.Message);
            }
            lines.Answer(ask, JsonSerializer.Serialize(answer, RoleLines.Json));
        }
    }
}
