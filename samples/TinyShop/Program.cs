using TinyShop;

// TinyShop: a JSON endpoint, a CPU-heavier report whose speed a configuration switch changes, and an endpoint that
// reads an environment variable. Each answers what it was asked, so a load test can check its responses.
var builder = WebApplication.CreateBuilder(args);
builder.Services.AddOptions<ReportOptions>().BindConfiguration(ReportOptions.Section);
builder.Services.AddSingleton<SalesReport>();
builder.Services.ConfigureHttpJsonOptions(o => o.SerializerOptions.TypeInfoResolverChain.Insert(0, ShopJson.Default));

var app = builder.Build();
app.MapGet("/healthz", () => "ok");
app.MapGet("/products/{id:int}", (int id) => Catalog.Find(id) is { } product
    ? Results.Ok(product)
    : Results.NotFound());
app.MapGet("/report", (SalesReport report) => report.Summary());
app.MapGet("/greeting", () => new Greeting(Environment.GetEnvironmentVariable("TINYSHOP_GREETING") ?? "hello"));
app.Run();
