"""Small real PDFs for the pre-call gate's tests: a blank page, a recipe and a CV, written with
PyMuPDF so the parser reads them as it reads any digital PDF."""

from __future__ import annotations

from pathlib import Path

import pymupdf

RECIPE = """\
Grandma's Apple Crumble
Serves 6. Preparation 20 minutes, baking 45 minutes.
Ingredients
6 large apples, peeled, cored and sliced
2 tablespoons lemon juice
100 g brown sugar
1 teaspoon ground cinnamon
150 g plain flour
75 g rolled oats
120 g cold butter, diced
A pinch of salt
Method
Heat the oven to 180 C. Butter a deep baking dish.
Toss the apples with the lemon juice, half of the sugar and the cinnamon.
Spread the fruit evenly in the dish.
Rub the butter into the flour with your fingertips until it looks like breadcrumbs.
Stir in the oats, the rest of the sugar and the salt.
Scatter the crumble over the apples and press down lightly.
Bake until golden and bubbling at the edges.
Serve warm with custard, cream or vanilla ice cream.
Tip: pears or rhubarb work just as well in autumn and spring.
"""

CV = """\
Maria Lopez
Senior Data Engineer
maria.lopez@example.org | +44 20 7946 0958 | London, United Kingdom
Profile
Data engineer with eight years of experience building reliable pipelines and analytics
platforms for retail and logistics companies.
Experience
Lead Data Engineer, Northwind Logistics, London (March 2021 - present)
Designed the streaming platform that tracks parcels across Europe.
Mentored a team of five engineers and introduced code review practices.
Data Engineer, Contoso Retail, Manchester (June 2016 - February 2021)
Built the warehouse and the nightly batch jobs behind the sales dashboards.
Education
MSc Computer Science, University of Manchester (2014 - 2016)
BSc Mathematics, University of Leeds (2011 - 2014)
Skills
Python, SQL, Apache Spark, Kafka, Airflow, Kubernetes, Terraform
Languages
English (native), Spanish (fluent), German (conversational)
Certifications
Google Professional Data Engineer
"""


def write_pdf(path: Path, text: str = "") -> Path:
    """A one-page PDF holding ``text`` (nothing: a blank page) in 10 pt Helvetica."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        y = 60.0
        for line in text.splitlines():
            page.insert_text((50, y), line, fontsize=10, fontname="helv")
            y += 14
        doc.save(path)
    return path
