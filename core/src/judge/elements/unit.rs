//! Units and currencies: the claim's value in the source with another unit (percent vs percentage
//! points), currency or period, and nowhere with the claim's.

use super::Finding;
use super::figure::{errors_against, relative_error};
use crate::judge::align::*;
use crate::model::{ClaimElement, Unit};

impl Alignment<'_> {
    pub(crate) fn units(&self) -> Vec<Finding> {
        let sources = self.source_figures();
        let mut out = Vec::new();
        for (c, _) in &self.claim.figures {
            if !matches!(
                c.unit,
                Unit::Percent | Unit::PercentagePoints | Unit::Currency
            ) {
                continue;
            }
            // A share the source writes as a ratio ("one in five") backs it too, when the
            // source gives no figure of the claim's own form.
            let backed = errors_against(c, sources.iter().map(|(_, f, _)| *f))
                .any(|(e, _)| e <= self.tolerance);
            if backed {
                continue;
            }
            let swapped = sources.iter().find_map(|(k, f, _)| {
                if relative_error(c.value, f.value) > self.tolerance {
                    return None;
                }
                let element = match (c.unit, f.unit) {
                    (Unit::Percent, Unit::PercentagePoints)
                    | (Unit::PercentagePoints, Unit::Percent) => ClaimElement::Unit,
                    (Unit::Currency, Unit::Currency) => match (&c.currency, &f.currency) {
                        (Some(a), Some(b)) if a != b => ClaimElement::Currency,
                        _ => match (&c.per, &f.per) {
                            (Some(a), Some(b)) if a != b => ClaimElement::Unit,
                            _ => return None,
                        },
                    },
                    _ => return None,
                };
                Some((element, *k, *f))
            });
            if let Some((element, k, f)) = swapped {
                out.push(Finding {
                    element,
                    contradiction: true,
                    strong: false,
                    review_only: false,
                    problem: format!(
                        "The claim says {} where the source says {}",
                        c.text,
                        super::figure::describe(f)
                    ),
                    correction: Some(format!("source says {}", super::figure::describe(f))),
                    sentence: Some(k),
                });
            }
        }
        out
    }
}
