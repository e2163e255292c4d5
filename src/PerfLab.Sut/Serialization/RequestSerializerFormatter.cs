using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Formatters;
using Newtonsoft.Json;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Serialization;

/// <summary>
/// Serving per-request variants: MVC's one JSON output formatter, which hands each response to the formatter of the
/// request's Serializer (<see cref="RequestVariant"/>), each set up as its own variant's process sets it up
/// (<see cref="SerializationSetup"/>: Newtonsoft ignoring loops, System.Text.Json ignoring cycles, source-generated
/// with SutJsonContext first).
/// </summary>
public sealed class RequestSerializerFormatter(IReadOnlyDictionary<SerializerKind, IOutputFormatter> formatters) : IOutputFormatter
{
    public static void Add(IMvcBuilder mvc, IServiceCollection services)
    {
        mvc.AddNewtonsoftJson(o => o.SerializerSettings.ReferenceLoopHandling = ReferenceLoopHandling.Ignore);
        mvc.AddJsonOptions(o => o.JsonSerializerOptions.ReferenceHandler = ReferenceHandler.IgnoreCycles);
        services.AddOptions<MvcOptions>().PostConfigure<Microsoft.Extensions.Options.IOptions<JsonOptions>>((options, json) =>
        {
            // AddNewtonsoftJson put its formatter in the place of System.Text.Json's; this one takes that place.
            var newtonsoft = options.OutputFormatters.OfType<NewtonsoftJsonOutputFormatter>().First();
            var index = options.OutputFormatters.IndexOf(newtonsoft);
            var sourceGenerated = new JsonSerializerOptions(json.Value.JsonSerializerOptions) { ReferenceHandler = null };
            sourceGenerated.TypeInfoResolverChain.Insert(0, SutJsonContext.Default);
            options.OutputFormatters[index] = new RequestSerializerFormatter(new Dictionary<SerializerKind, IOutputFormatter>
            {
                [SerializerKind.Newtonsoft] = newtonsoft,
                [SerializerKind.SystemTextJson] = new SystemTextJsonOutputFormatter(json.Value.JsonSerializerOptions),
                [SerializerKind.SystemTextJsonSourceGen] = new SystemTextJsonOutputFormatter(sourceGenerated),
            });
        });
    }

    public bool CanWriteResult(OutputFormatterCanWriteContext context) => Of(context.HttpContext).CanWriteResult(context);

    public Task WriteAsync(OutputFormatterWriteContext context) => Of(context.HttpContext).WriteAsync(context);

    private IOutputFormatter Of(HttpContext http) => formatters[http.RequestServices.GetRequiredService<RequestVariant>().Serializer];
}
