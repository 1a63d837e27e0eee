//! Drawing a figure with plotters, as PNG or SVG.

use std::ops::Range;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::balance::BalanceView;
use super::figure::{
    Axis, BALANCE_HEIGHT, Figure, LEGEND_WIDTH, PANEL_HEIGHT, Panel, SECTION_HEIGHT, Section,
    TITLE_HEIGHT, WIDTH,
};

use super::font::FONT;

/// The image formats, told by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    /// `.png`.
    Png,
    /// `.svg`.
    Svg,
}

impl Format {
    /// The format `path`'s extension names, if any.
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(Format::Png),
            "svg" => Some(Format::Svg),
            _ => None,
        }
    }
}

/// Distinct colours for the joints of one panel (up to 12 before they repeat).
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(64, 64, 64),
    RGBColor(0, 0, 139),
    RGBColor(139, 0, 0),
];

/// Writes `figure` to `output`; `text` false: no text at all (no font was found).
pub fn draw(
    figure: &Figure,
    format: Format,
    output: &Path,
    text: bool,
) -> Result<(), crate::plot::error::PlotError> {
    draw_to(figure, format, output, text).map_err(crate::plot::error::PlotError::Draw)
}

fn draw_to(figure: &Figure, format: Format, output: &Path, text: bool) -> Result<(), String> {
    let panels: u32 = figure.sections.iter().map(Section::height).sum();
    let size = (WIDTH, TITLE_HEIGHT + panels);
    match format {
        Format::Png => {
            let root = BitMapBackend::new(output, size).into_drawing_area();
            render(&root, figure, text).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())
        }
        Format::Svg => {
            let root = SVGBackend::new(output, size).into_drawing_area();
            render(&root, figure, text).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())
        }
    }
}

type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn render<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &Figure,
    text: bool,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let (title, mut rest) = root.split_vertically(TITLE_HEIGHT);
    if text {
        let style = (FONT, 26)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        title.draw_text(
            &figure.title,
            &style,
            ((WIDTH / 2) as i32, (TITLE_HEIGHT / 2) as i32),
        )?;
    }
    for section in &figure.sections {
        let (area, below) = rest.split_vertically(section.height());
        rest = below;
        let (head, body) = area.split_vertically(SECTION_HEIGHT);
        if text {
            let style = (FONT, 18)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center));
            head.draw_text(&section.title, &style, (16, (SECTION_HEIGHT / 2) as i32))?;
        }
        let (curves, below) = body.split_vertically(PANEL_HEIGHT * section.panels.len() as u32);
        let areas = curves.split_evenly((section.panels.len(), 1));
        for (panel, area) in section.panels.iter().zip(&areas) {
            draw_panel(area, section, panel, text)?;
        }
        if let Some(view) = &section.balance {
            draw_balance(&below, view, text)?;
        }
    }
    Ok(())
}

impl Section {
    /// Its height in the image, pixels.
    pub(super) fn height(&self) -> u32 {
        let balance = if self.balance.is_some() {
            BALANCE_HEIGHT
        } else {
            0
        };
        SECTION_HEIGHT + PANEL_HEIGHT * self.panels.len() as u32 + balance
    }
}

/// The balance seen from above: a square chart (one scale on both axes) of the polygons
/// and the paths, and on its right what they mean and what was found.
fn draw_balance<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &BalanceView,
    text: bool,
) -> Drawn<DB> {
    let (chart_area, notes) = area.split_horizontally(BALANCE_HEIGHT + 60);
    let (u, v) = square_around(view);
    let mut builder = ChartBuilder::on(&chart_area);
    builder.margin(8);
    if text {
        builder.x_label_area_size(34).y_label_area_size(50);
    }
    let mut chart = builder.build_cartesian_2d(u, v)?;
    let grid = RGBColor(225, 225, 225);
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE).bold_line_style(grid);
    if text {
        mesh.x_desc("to the right (cm)")
            .y_desc("ahead (cm)")
            .x_label_formatter(&|x| number(*x, 0))
            .y_label_formatter(&|y| number(*y, 0))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    } else {
        mesh.draw()?;
    }
    let closed = |p: &[(f64, f64)]| p.iter().chain(p.first()).copied().collect::<Vec<_>>();
    chart.draw_series(std::iter::once(Polygon::new(
        view.polygon.clone(),
        POLYGON.mix(0.35).filled(),
    )))?;
    chart.draw_series(std::iter::once(PathElement::new(
        closed(&view.polygon),
        POLYGON.stroke_width(2),
    )))?;
    let moved = view.last_polygon.len() != view.polygon.len()
        || view
            .last_polygon
            .iter()
            .zip(&view.polygon)
            .any(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1) > 0.1);
    if moved {
        chart.draw_series(std::iter::once(PathElement::new(
            closed(&view.last_polygon),
            LAST_POLYGON.stroke_width(2),
        )))?;
    }
    for run in &view.zmp {
        chart.draw_series(LineSeries::new(run.iter().copied(), ZMP.stroke_width(1)))?;
    }
    for run in &view.com {
        chart.draw_series(LineSeries::new(run.iter().copied(), COM.stroke_width(2)))?;
    }
    if let Some(first) = view.com.first().and_then(|r| r.first()) {
        chart.draw_series(std::iter::once(Circle::new(*first, 5, COM.filled())))?;
    }
    if let Some(fall) = view.fall {
        chart.draw_series(std::iter::once(Cross::new(fall, 9, FALL.stroke_width(3))))?;
    }
    if text {
        let style = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let legend = [
            (COM, "centre of mass (a dot where it starts)"),
            (ZMP, "zero-moment point (cart-table model)"),
            (POLYGON, "support polygon at the start"),
            (LAST_POLYGON, "support polygon at the end"),
            (FALL, "where it begins to fall"),
        ];
        for (i, (colour, words)) in legend.iter().enumerate() {
            let row = 30 + 22 * i as i32;
            notes.draw(&Rectangle::new(
                [(8, row - 5), (22, row + 5)],
                colour.filled(),
            ))?;
            notes.draw_text(words, &style, (30, row))?;
        }
        for (i, line) in view.notes.iter().enumerate() {
            let row = 30 + 22 * (legend.len() as i32 + 1 + i as i32);
            notes.draw_text(line, &style, (8, row))?;
        }
    }
    Ok(())
}

/// The balance view's colours.
const COM: RGBColor = RGBColor(31, 119, 180);

pub(super) const ZMP: RGBColor = RGBColor(255, 127, 14);

const POLYGON: RGBColor = RGBColor(120, 120, 120);

const LAST_POLYGON: RGBColor = RGBColor(44, 160, 44);

const FALL: RGBColor = RGBColor(214, 39, 40);

/// The y range of a panel: hands 0..1, joints their values' range, padded (at least 0.2 rad).
fn y_range(panel: &Panel) -> Range<f64> {
    if panel.hands {
        return -0.02..1.02;
    }
    let values = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().chain(&s.keys).map(|p| p.1));
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return -1.0..1.0;
    }
    let middle = (lo + hi) / 2.0;
    let half = ((hi - lo) / 2.0 * 1.08).max(0.1);
    (middle - half)..(middle + half)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    section: &Section,
    panel: &Panel,
    text: bool,
) -> Drawn<DB> {
    let (plot, legend) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let y = y_range(panel);
    let seconds = match section.axis {
        Axis::Frames { fps, start } => {
            (section.x.start - start) / fps..(section.x.end - start) / fps
        }
        Axis::Seconds => section.x.clone(),
    };
    let mut builder = ChartBuilder::on(&plot);
    builder.margin(6);
    if text {
        builder.x_label_area_size(34).y_label_area_size(78);
        if matches!(section.axis, Axis::Frames { .. }) {
            builder.top_x_label_area_size(30);
        }
    }
    let mut chart = builder
        .build_cartesian_2d(section.x.clone(), y.clone())?
        .set_secondary_coord(seconds, y);
    let unit = if panel.hands { "ratio" } else { "rad" };
    let x_desc = match section.axis {
        Axis::Frames { .. } => "frame",
        Axis::Seconds => "behavior time (s)",
    };
    let grid = RGBColor(225, 225, 225);
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE).bold_line_style(grid);
    if text {
        let x_label = |x: &f64| match section.axis {
            Axis::Frames { .. } => number(*x, 0),
            Axis::Seconds => number(*x, 1),
        };
        mesh.x_desc(x_desc)
            .y_desc(format!("{} ({unit})", panel.name))
            .x_label_formatter(&x_label)
            .y_label_formatter(&|v| number(*v, 2))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    } else {
        mesh.draw()?;
        // No axes without labels: a frame shows where the plot is.
        let (x, y) = (section.x.clone(), y_range(panel));
        chart.plotting_area().draw(&Rectangle::new(
            [(x.start, y.start), (x.end, y.end)],
            BLACK.stroke_width(1),
        ))?;
    }
    if text && matches!(section.axis, Axis::Frames { .. }) {
        chart
            .configure_secondary_axes()
            .x_desc("seconds")
            .x_label_formatter(&|s| number(*s, 1))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
    }
    for (i, s) in panel.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        chart.draw_series(LineSeries::new(
            s.points.iter().copied(),
            colour.stroke_width(2),
        ))?;
        chart.draw_series(s.keys.iter().map(|k| Circle::new(*k, 4, colour.filled())))?;
    }
    if text {
        let style = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, s) in panel.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let row = 24 + 19 * i as i32;
            legend.draw(&Rectangle::new(
                [(8, row - 5), (22, row + 5)],
                colour.filled(),
            ))?;
            legend.draw_text(&s.joint, &style, (30, row))?;
        }
    }
    Ok(())
}

/// The square (cm along both axes) a balance view is drawn in: everything in it, 2 cm
/// around, at least 10 cm across, so that a centimetre is as long across as along.
fn square_around(view: &BalanceView) -> (Range<f64>, Range<f64>) {
    let points = view
        .polygon
        .iter()
        .chain(&view.last_polygon)
        .chain(view.com.iter().flatten())
        .chain(view.zmp.iter().flatten());
    let (mut lo, mut hi) = (
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    for &(u, v) in points {
        lo = (lo.0.min(u), lo.1.min(v));
        hi = (hi.0.max(u), hi.1.max(v));
    }
    let half = ((hi.0 - lo.0).max(hi.1 - lo.1) / 2.0 + 2.0).max(5.0);
    let centre = ((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0);
    (
        (centre.0 - half)..(centre.0 + half),
        (centre.1 - half)..(centre.1 + half),
    )
}

/// `x` with `decimals` decimals, never `-0.00`.
fn number(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.strip_prefix('-') {
        Some(digits) if digits.chars().all(|c| c == '0' || c == '.') => digits.to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_never_read_minus_zero() {
        assert_eq!(number(-0.001, 2), "0.00");
        assert_eq!(number(-0.0, 0), "0");
        assert_eq!(number(-0.5, 1), "-0.5");
        assert_eq!(number(12.0, 0), "12");
    }

    #[test]
    fn the_output_extension_decides_the_format() {
        assert_eq!(Format::of(Path::new("a.PNG")), Some(Format::Png));
        assert_eq!(Format::of(Path::new("dir/a.svg")), Some(Format::Svg));
        assert_eq!(Format::of(Path::new("a.jpg")), None);
        assert_eq!(Format::of(Path::new("png")), None);
    }
}
