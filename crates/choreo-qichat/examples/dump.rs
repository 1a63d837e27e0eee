//! Prints a topic's syntax tree, or its errors: `cargo run -p choreo-qichat --example dump -- x.top`.

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        match choreo_qichat::parse(&path, &bytes) {
            Ok(p) => {
                for w in &p.warnings {
                    println!("{w}");
                }
                println!("{:#?}", p.topic);
            }
            Err(errors) => errors.iter().for_each(|e| println!("{e}")),
        }
    }
}
