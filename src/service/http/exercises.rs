//! Exercises: the catalogue as the API shows it (`/api/v1/exercises`, a statement per learner and
//! language), and what consumer exercises point to: the ABI guide and the starter kits' files.

use crate::service::problem::answers::{NoValidToken, UnknownExercise};
use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::auth::Client;
use super::handler::Data;
use super::views::{
    AbiLink, ExerciseDetail, ExerciseList, ExerciseQuery, ExerciseSummary, KitFileView, KitView,
};
use crate::service::learner::Learner;
use crate::service::problem::Problem;
use crate::submission::SubmissionKind;
use crate::text::Lang;

#[utoipa::path(
    get,
    path = "/api/v1/exercises",
    tag = "exercises",
    responses(
        (status = 200, description = "Every exercise served", body = ExerciseList),
        NoValidToken,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_exercises(shared: Data, _client: Client) -> Result<HttpResponse, Problem> {
    let exercises = shared
        .catalogue
        .all()
        .values()
        .map(|e| ExerciseSummary {
            slug: e.slug.clone(),
            title: e.title.clone(),
            grader: e.grader_kind().name().to_string(),
            points: e.points,
            href: format!("{}/api/v1/exercises/{}", shared.config.public_url, e.slug),
        })
        .collect();
    Ok(HttpResponse::Ok().json(ExerciseList { exercises }))
}

#[utoipa::path(
    get,
    path = "/api/v1/exercises/{slug}",
    tag = "exercises",
    params(("slug" = String, Path, description = "The exercise's slug"), ExerciseQuery),
    responses(
        (status = 200, description = "The statement for the learner and language, and what to submit", body = ExerciseDetail),
        (status = 400, description = "Bad language or learner", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        UnknownExercise,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_exercise(
    path: web::Path<String>,
    query: web::Query<ExerciseQuery>,
    shared: Data,
    _client: Client,
) -> Result<HttpResponse, Problem> {
    let slug = path.into_inner();
    let exercise = shared.catalogue.get(&slug).ok_or_else(|| {
        Problem::not_found(
            "unknown-exercise",
            format!(
                "There is no exercise {slug:?}. Known exercises: {}.",
                shared.catalogue.slugs().join(", ")
            ),
            format!(
                "Es gibt keine Aufgabe {slug:?}. Vorhandene Aufgaben: {}.",
                shared.catalogue.slugs().join(", ")
            ),
        )
    })?;
    let lang = parse_lang(query.lang.as_deref())?;
    let learner = Learner::parse_optional(query.learner.as_deref())
        .map_err(|e| Problem::bad_learner("bad-learner", e))?
        .map(Learner::into_string);
    let statement = {
        let exercise = exercise.clone();
        let learner = learner.clone();
        let secret = shared.course_secret.clone();
        web::block(move || exercise.grader.statement(&exercise, learner.as_deref(), &secret, lang))
            .await?
            .map_err(Problem::internal)?
    };
    let base = &shared.config.public_url;
    let (submit, answer_example, abi, kits) = match exercise.grader.submission_kind() {
        SubmissionKind::Answer => {
            ("answer", exercise.grader.answer_example().map(str::to_string), None, Vec::new())
        }
        SubmissionKind::Module => {
            let kits = shared
                .catalogue
                .kits()
                .into_iter()
                .map(|(name, files)| KitView {
                    readme: files
                        .iter()
                        .find(|f| f.eq_ignore_ascii_case("README.md"))
                        .map(|f| format!("{base}/kits/{name}/{f}")),
                    files: files
                        .iter()
                        .map(|f| KitFileView { path: f.clone(), href: format!("{base}/kits/{name}/{f}") })
                        .collect(),
                    name,
                })
                .collect();
            ("module", None, Some(AbiLink { version: 1, href: format!("{base}/docs/consumer-abi") }), kits)
        }
    };
    Ok(HttpResponse::Ok().json(ExerciseDetail {
        slug: exercise.slug.clone(),
        title: exercise.title.clone(),
        grader: exercise.grader_kind().name().to_string(),
        points: exercise.points,
        lang: lang.code().to_string(),
        learner,
        statement,
        submit: submit.to_string(),
        answer_example,
        limits: exercise.limits.clone(),
        abi,
        kits,
        languages: exercise.grader.languages().iter().map(|l| l.name().to_string()).collect(),
    }))
}

/// The `lang` of the API: absent, `de` or `en` (the values the OpenAPI document declares).
pub(crate) fn parse_lang(raw: Option<&str>) -> Result<Lang, Problem> {
    match raw {
        None | Some("de") => Ok(Lang::De),
        Some("en") => Ok(Lang::En),
        Some(raw) => Err(Problem::bad_request(
            "bad-lang",
            format!("lang={raw:?} is not a language: use de or en."),
            format!("lang={raw:?} ist keine Sprache: de oder en verwenden."),
        )),
    }
}

pub(crate) async fn abi_guide(shared: Data) -> HttpResponse {
    match shared.catalogue.abi_guide() {
        Some(text) => HttpResponse::Ok().content_type("text/markdown; charset=utf-8").body(text),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body("no ABI guide on this server\n"),
    }
}

pub(crate) async fn kit_file(path: web::Path<(String, String)>, shared: Data) -> HttpResponse {
    let (kit, file) = path.into_inner();
    match shared.catalogue.kit_file(&kit, &file) {
        Some(bytes) => {
            let text = std::str::from_utf8(&bytes).is_ok();
            HttpResponse::Ok()
                .content_type(if text { "text/plain; charset=utf-8" } else { "application/octet-stream" })
                .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                .body(bytes)
        }
        None => HttpResponse::NotFound().content_type("text/plain; charset=utf-8").body("no such kit file\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_lang;
    use crate::text::Lang;

    /// The API's `lang` takes exactly the enum the OpenAPI document declares (or nothing).
    #[test]
    fn lang_takes_exactly_the_declared_values() {
        assert_eq!(parse_lang(None).ok(), Some(Lang::De));
        assert_eq!(parse_lang(Some("de")).ok(), Some(Lang::De));
        assert_eq!(parse_lang(Some("en")).ok(), Some(Lang::En));
        for raw in ["", "EN", " en", "english", "deutsch", "fr"] {
            let problem = parse_lang(Some(raw)).expect_err(raw);
            assert_eq!(problem.code, "bad-lang", "{raw:?}");
            assert!(problem.detail.contains("use de or en"), "{}", problem.detail);
        }
    }
}
